import type { AuditTable } from '../../../common/audit-log';

/** A venue's management changes: `tickets.audit_events`, one log per venue. */
export const VENUE_AUDIT: AuditTable = { table: 'tickets.audit_events', subject: 'venue_id' };
