import type { EntityManager } from '../../common/database';

/** Who made a change: a signed-in person, a branch key, or the operator's CLI. */
export type Actor = { type: 'user'; id: number } | { type: 'key'; id: number } | { type: 'operator' };

/** Values that describe a change; never a secret (keys, webhook secrets, tokens). */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null>>;

export interface AuditEvent {
  id: number;
  venueId: number;
  actor: Actor;
  action: string;
  target: string;
  details: AuditDetails;
  clientAddress: string | null;
  createdAt: Date;
}

interface RawEvent {
  id: string;
  venue_id: string;
  actor_type: Actor['type'];
  actor_id: string | null;
  action: string;
  target: string;
  details: AuditDetails | string;
  client_address: string | null;
  created_at: Date | string;
}

function eventOf(row: RawEvent): AuditEvent {
  return {
    id: Number(row.id),
    venueId: Number(row.venue_id),
    actor:
      row.actor_type === 'operator'
        ? { type: 'operator' }
        : { type: row.actor_type, id: Number(row.actor_id) },
    action: row.action,
    target: row.target,
    details: typeof row.details === 'string' ? (JSON.parse(row.details) as AuditDetails) : row.details,
    clientAddress: row.client_address,
    createdAt: new Date(row.created_at),
  };
}

/** `tickets.audit_events`: a venue's management changes, newest first. */
export class AuditRepository {
  constructor(private readonly em: EntityManager) {}

  async record(event: {
    venueId: number;
    actor: Actor;
    action: string;
    target: string;
    details?: AuditDetails;
    clientAddress?: string | null;
  }): Promise<void> {
    await this.em.execute(
      `insert into tickets.audit_events (venue_id, actor_type, actor_id, action, target, details, client_address)
       values (?, ?, ?, ?, ?, ?::jsonb, ?)`,
      [
        event.venueId,
        event.actor.type,
        event.actor.type === 'operator' ? null : event.actor.id,
        event.action,
        event.target,
        JSON.stringify(event.details ?? {}),
        event.clientAddress ?? null,
      ],
    );
  }

  /** A page of the venue's events older than `before` (an event id), newest first. */
  async page(venueId: number, first: number, before: number | null): Promise<AuditEvent[]> {
    const rows = await this.em.execute<RawEvent[]>(
      `select id, venue_id, actor_type, actor_id, action, target, details, client_address, created_at
         from tickets.audit_events
        where venue_id = ? and (?::bigint is null or id < ?::bigint)
        order by id desc limit ?`,
      [venueId, before, before, first],
    );
    return rows.map(eventOf);
  }
}
