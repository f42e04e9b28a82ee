import type { EntityManager } from './database';

/** Who made a change: a signed-in person, an API key, or the operator's CLI. */
export type Actor = { type: 'user'; id: number } | { type: 'key'; id: number } | { type: 'operator' };

/** The operator's CLI: no person, no key, no client address. */
export const OPERATOR: Actor = { type: 'operator' };

/** Values that describe a change; never a secret (keys, webhook secrets, tokens, passwords). */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null>>;

export interface AuditEvent {
  id: number;
  /** The venue, CV account or user whose log it is in. */
  subjectId: number;
  actor: Actor;
  action: string;
  target: string;
  details: AuditDetails;
  clientAddress: string | null;
  createdAt: Date;
}

/** A change to keep: everything but the log it goes to and the time. */
export interface AuditEntry {
  subjectId: number;
  actor: Actor;
  action: string;
  target: string;
  details?: AuditDetails;
  clientAddress?: string | null;
}

/**
 * Where a domain keeps its log: a table of its own schema, and the column naming whose log a row
 * is in. Each domain owns its rows (the dependency rule); only the shape is shared.
 */
export type AuditTable =
  | { table: 'tickets.audit_events'; subject: 'venue_id' }
  | { table: 'cv.audit_events'; subject: 'account_id' }
  | { table: 'identity.audit_events'; subject: 'user_id' };

interface RawEvent {
  id: string;
  subject_id: string;
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
    subjectId: Number(row.subject_id),
    actor: row.actor_type === 'operator' ? OPERATOR : { type: row.actor_type, id: Number(row.actor_id) },
    action: row.action,
    target: row.target,
    details: typeof row.details === 'string' ? (JSON.parse(row.details) as AuditDetails) : row.details,
    clientAddress: row.client_address,
    createdAt: new Date(row.created_at),
  };
}

/** An append-only log of management changes, newest first when read. */
export class AuditLog {
  constructor(
    private readonly em: EntityManager,
    private readonly where: AuditTable,
  ) {}

  async record(entry: AuditEntry): Promise<void> {
    const { table, subject } = this.where;
    await this.em.execute(
      `insert into ${table} (${subject}, actor_type, actor_id, action, target, details, client_address)
       values (?, ?, ?, ?, ?, ?::jsonb, ?)`,
      [
        entry.subjectId,
        entry.actor.type,
        entry.actor.type === 'operator' ? null : entry.actor.id,
        entry.action,
        entry.target,
        JSON.stringify(entry.details ?? {}),
        entry.clientAddress ?? null,
      ],
    );
  }

  /** A page of the subject's events older than `before` (an event id), newest first. */
  async page(subjectId: number, first: number, before: number | null): Promise<AuditEvent[]> {
    const { table, subject } = this.where;
    const rows = await this.em.execute<RawEvent[]>(
      `select id, ${subject} as subject_id, actor_type, actor_id, action, target, details, client_address, created_at
         from ${table}
        where ${subject} = ? and (?::bigint is null or id < ?::bigint)
        order by id desc limit ?`,
      [subjectId, before, before, first],
    );
    return rows.map(eventOf);
  }
}
