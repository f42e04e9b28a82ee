import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '../../../common/database';
import { Ticket } from '../tickets';

/**
 * Rows one FETCH reads (about 75 KB of CSV), whatever the range holds. Small on purpose: a batch
 * lives while its chunks drain, and rows that outlive two young-generation collections are moved
 * to the old one, which grows until a full collection; a batch of 1,000 made the heap grow with
 * the file.
 */
export const EXPORT_BATCH_ROWS = 200;

interface TicketRow {
  id: string;
  branch_id: string;
  number: string;
  external_id: string | null;
  token: string;
  status: Ticket['status'];
  customer_name: string | null;
  note: string | null;
  source: number;
  ring_count: number;
  phone_linked: boolean;
  alerts_enabled: boolean;
  sms_opt_in: boolean;
  sms_sent: boolean;
  linked_at: string | null;
  ready_at: string | null;
  collected_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Timestamps come as Postgres writes them (the ORM's parsers keep them text); read as the ORM reads them. */
function dateOf(text: string): Date;
function dateOf(text: string | null): Date | null;
function dateOf(text: string | null): Date | null {
  return text === null ? null : new Date(text);
}

function ticketOf(row: TicketRow): Ticket {
  const ticket = new Ticket();
  ticket.id = Number(row.id);
  ticket.branchId = Number(row.branch_id);
  ticket.number = row.number;
  ticket.externalId = row.external_id;
  ticket.token = row.token;
  ticket.status = row.status;
  ticket.customerName = row.customer_name;
  ticket.note = row.note;
  ticket.source = row.source;
  ticket.ringCount = row.ring_count;
  ticket.phoneLinked = row.phone_linked;
  ticket.alertsEnabled = row.alerts_enabled;
  ticket.smsOptIn = row.sms_opt_in;
  ticket.smsSent = row.sms_sent;
  ticket.linkedAt = dateOf(row.linked_at);
  ticket.readyAt = dateOf(row.ready_at);
  ticket.collectedAt = dateOf(row.collected_at);
  ticket.cancelledAt = dateOf(row.cancelled_at);
  ticket.createdAt = dateOf(row.created_at);
  ticket.updatedAt = dateOf(row.updated_at);
  return ticket;
}

/**
 * The export's one read: a branch's tickets created in [from, to), oldest first, through a
 * server-side cursor in a read-only snapshot, so the file is one consistent moment of the table
 * and no more than one batch is ever in this process.
 */
export class TicketExportRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * Hands `take` each batch and reads the next only once the promise it returned is settled: the
   * reader's pace (the HTTP response's drain) is the query's. A `take` that throws ends the
   * transaction (rolled back; nothing was written) and the error reaches the caller.
   */
  async eachBatch(
    range: { branchId: number; from: Date; to: Date },
    take: (tickets: Ticket[]) => Promise<void>,
  ): Promise<number> {
    return this.em.fork().transactional(
      async (em) => {
        // The tickets_branch_created_index, read backwards, gives this order without a sort.
        await em.execute(
          `declare ticket_export no scroll cursor for
             select id::text, branch_id::text, number, external_id, token, status, customer_name, note,
                    source, ring_count, phone_linked, alerts_enabled, sms_opt_in, sms_sent,
                    linked_at, ready_at, collected_at, cancelled_at, created_at, updated_at
               from tickets.tickets
              where branch_id = ? and created_at >= ? and created_at < ?
              order by created_at, id`,
          [range.branchId, range.from, range.to],
        );
        let count = 0;
        for (;;) {
          const rows = await em.execute<TicketRow[]>(`fetch ${EXPORT_BATCH_ROWS} from ticket_export`);
          if (rows.length === 0) break;
          count += rows.length;
          await take(rows.map(ticketOf));
          if (rows.length < EXPORT_BATCH_ROWS) break;
        }
        await em.execute('close ticket_export');
        return count;
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
    );
  }
}
