import type { AuditTable } from '../../../common/audit-log';

/** A CV account's management changes: `cv.audit_events`, one log per account. */
export const ACCOUNT_AUDIT: AuditTable = { table: 'cv.audit_events', subject: 'account_id' };
