/**
 * Venues: a venue, its branches, its people and their roles, invitations, and the venue's audit log.
 * What the other folders of the tickets subgraph may use; the rest of venues/ is its own.
 */
export { Branch } from './branch.entity';
export { Venue, type VenueLanguage } from './venue.entity';
export { VenueRepository } from './venue.repository';
export { VenueService } from './venue.service';
export { checkName } from './venue.rules';
export {
  claimVenueRoom,
  LEASED_NUMBERS_PER_DAY,
  VENUE_CAPS,
  VENUES_PER_PERSON,
  type VenueCap,
} from './venue-caps';
export { MembershipRepository, VENUE_ROLES, type Membership, type VenueRole } from './membership.repository';
export { VenueRoles, type VenueAction } from './venue-roles';
export { VENUE_AUDIT } from './venue-audit';
export {
  VenueManagement,
  FIRST_PLAN,
  type VenueManagementPorts,
  type WhatsAppSwitchPorts,
} from './venue-management.service';
export { VenueMembers, INVITATION_DAYS, type VenueMembersPorts } from './venue-members.service';
export { VenueAuditLogResolver, VenueManagementResolver } from './venue-management.resolver';
export { VenueMembersResolver } from './venue-members.resolver';
export { BranchType, VenueType, toBranchType, toVenueType } from './venue.type';
export { UserReference } from './venue-management.type';
