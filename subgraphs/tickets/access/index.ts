/**
 * Access: who may do what with tickets. API keys, the board devices' and displays' credentials as
 * TicketAccess reads them, the access cache and its announcements, and each venue's plan.
 * What the other folders of the tickets subgraph may use; the rest of access/ is its own.
 */
export { ApiKey, TICKET_SCOPES, type TicketScope } from './api-key.entity';
export { ApiKeyRepository } from './api-key.repository';
export { ApiKeyService, parseScopes, type IssuedKey, type Principal } from './api-key.service';
export { AccessCache, announceAccessChange } from './access-cache';
export { VenuePlanClient, type VenueEntitlements } from './venue-plan.client';
export { TicketAccess, type IntegrationFeature, type TicketCredentials } from './ticket-access';
export { VenueApiKeys } from './api-key-management.service';
export { VenueApiKeysResolver } from './api-key-management.resolver';
