import { AuditLog, OPERATOR, type AuditDetails } from '../../common/audit-log';
import type { CliContext } from '../../common/cli';
import { VENUE_AUDIT } from '../../subgraphs/tickets/venues';

/** Keeps an operator's change in the venue's audit log (actor: operator, no address). */
export async function auditVenue(
  context: CliContext,
  venueId: number,
  action: string,
  target: string,
  details: AuditDetails = {},
): Promise<void> {
  await new AuditLog(await context.em('tickets'), VENUE_AUDIT).record({
    subjectId: venueId,
    actor: OPERATOR,
    action,
    target,
    details,
  });
}
