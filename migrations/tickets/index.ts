import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121100000CreateSchema } from './Migration20261121100000CreateSchema';
import { Migration20261121120000TicketsDomain } from './Migration20261121120000TicketsDomain';
import { Migration20261121200000WebhooksAndSms } from './Migration20261121200000WebhooksAndSms';
import { Migration20261122100000TicketFeedback } from './Migration20261122100000TicketFeedback';
import { Migration20261122110000PushSubscriptions } from './Migration20261122110000PushSubscriptions';
import { Migration20261123100000OutboxRelayedAt } from './Migration20261123100000OutboxRelayedAt';
import { Migration20261123200000VenueMembers } from './Migration20261123200000VenueMembers';
import { Migration20261123210000VenueInvitations } from './Migration20261123210000VenueInvitations';
import { Migration20261123220000AuditEvents } from './Migration20261123220000AuditEvents';
import { Migration20261125200000BoardsAndDisplays } from './Migration20261125200000BoardsAndDisplays';
import { Migration20261126100000TraceContext } from './Migration20261126100000TraceContext';
import { Migration20261127100000VenueInsights } from './Migration20261127100000VenueInsights';
import { Migration20261127200000WaitAndEstimate } from './Migration20261127200000WaitAndEstimate';
import { Migration20261127210000WaitIndexes } from './Migration20261127210000WaitIndexes';
import { Migration20261128100000BoardOffline } from './Migration20261128100000BoardOffline';
import { Migration20261128110000BoardPrefixIndex } from './Migration20261128110000BoardPrefixIndex';
import { Migration20261208100000WhatsApp } from './Migration20261208100000WhatsApp';
import { Migration20261208110000WhatsAppCodeIndex } from './Migration20261208110000WhatsAppCodeIndex';

/** Tickets migrations in the order they apply; append, never reorder. */
export const ticketsMigrations: MigrationObject[] = [
  { name: 'Migration20261121100000CreateSchema', class: Migration20261121100000CreateSchema },
  { name: 'Migration20261121120000TicketsDomain', class: Migration20261121120000TicketsDomain },
  { name: 'Migration20261121200000WebhooksAndSms', class: Migration20261121200000WebhooksAndSms },
  { name: 'Migration20261122100000TicketFeedback', class: Migration20261122100000TicketFeedback },
  { name: 'Migration20261122110000PushSubscriptions', class: Migration20261122110000PushSubscriptions },
  { name: 'Migration20261123100000OutboxRelayedAt', class: Migration20261123100000OutboxRelayedAt },
  { name: 'Migration20261123200000VenueMembers', class: Migration20261123200000VenueMembers },
  { name: 'Migration20261123210000VenueInvitations', class: Migration20261123210000VenueInvitations },
  { name: 'Migration20261123220000AuditEvents', class: Migration20261123220000AuditEvents },
  { name: 'Migration20261125200000BoardsAndDisplays', class: Migration20261125200000BoardsAndDisplays },
  { name: 'Migration20261126100000TraceContext', class: Migration20261126100000TraceContext },
  { name: 'Migration20261127100000VenueInsights', class: Migration20261127100000VenueInsights },
  { name: 'Migration20261127200000WaitAndEstimate', class: Migration20261127200000WaitAndEstimate },
  { name: 'Migration20261127210000WaitIndexes', class: Migration20261127210000WaitIndexes },
  { name: 'Migration20261128100000BoardOffline', class: Migration20261128100000BoardOffline },
  { name: 'Migration20261128110000BoardPrefixIndex', class: Migration20261128110000BoardPrefixIndex },
  { name: 'Migration20261208100000WhatsApp', class: Migration20261208100000WhatsApp },
  { name: 'Migration20261208110000WhatsAppCodeIndex', class: Migration20261208110000WhatsAppCodeIndex },
];
