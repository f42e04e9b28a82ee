import type { EntityManager } from '../../common/database';
import type { TextLanguage } from '../../common/language';
import { AuditLog, type AuditTable } from '../../common/audit-log';

/** A person's sign-in changes: `identity.audit_events`, one log per user. */
const USER_AUDIT: AuditTable = { table: 'identity.audit_events', subject: 'user_id' };

export interface UserRow {
  id: number;
  email: string;
  name: string;
  language: TextLanguage;
  passwordHash: string;
  verifiedAt: Date | null;
  createdAt: Date;
}

export interface SessionRow {
  id: number;
  userId: number;
  device: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

export type OneTimeKind = 'verify' | 'reset';

interface RawUser {
  id: string;
  email: string;
  name: string;
  language: TextLanguage;
  password_hash: string;
  verified_at: Date | string | null;
  created_at: Date | string;
}

interface RawSession {
  id: string;
  user_id: string;
  device: string;
  created_at: Date | string;
  last_seen_at: Date | string;
  expires_at: Date | string;
}

const USER = `id, email, name, language, password_hash, verified_at, created_at`;
const SESSION = `id, user_id, device, created_at, last_seen_at, expires_at`;

function userOf(row: RawUser): UserRow {
  return {
    id: Number(row.id),
    email: row.email,
    name: row.name,
    language: row.language,
    passwordHash: row.password_hash,
    // Raw queries hand timestamps over as text.
    verifiedAt: row.verified_at === null ? null : new Date(row.verified_at),
    createdAt: new Date(row.created_at),
  };
}

function sessionOf(row: RawSession): SessionRow {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    device: row.device,
    createdAt: new Date(row.created_at),
    lastSeenAt: new Date(row.last_seen_at),
    expiresAt: new Date(row.expires_at),
  };
}

/** `identity.users`, `identity.sessions` and `identity.one_time_tokens`. */
export class IdentityRepository {
  constructor(private readonly em: EntityManager) {}

  /** The new user, or null when the address is taken (compared without regard to case). */
  async createUser(fields: {
    email: string;
    name: string;
    language: TextLanguage;
    passwordHash: string;
  }): Promise<UserRow | null> {
    const rows = await this.em.execute<RawUser[]>(
      `insert into identity.users (email, name, language, password_hash) values (?, ?, ?, ?)
       on conflict ((lower(email))) do nothing returning ${USER}`,
      [fields.email, fields.name, fields.language, fields.passwordHash],
    );
    return rows[0] === undefined ? null : userOf(rows[0]);
  }

  async userByEmail(email: string): Promise<UserRow | null> {
    const rows = await this.em.execute<RawUser[]>(
      `select ${USER} from identity.users where lower(email) = lower(?)`,
      [email],
    );
    return rows[0] === undefined ? null : userOf(rows[0]);
  }

  async userById(id: number): Promise<UserRow | null> {
    const rows = await this.em.execute<RawUser[]>(`select ${USER} from identity.users where id = ?`, [id]);
    return rows[0] === undefined ? null : userOf(rows[0]);
  }

  async usersByIds(ids: readonly number[]): Promise<UserRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.em.execute<RawUser[]>(
      `select ${USER} from identity.users where id = any(?::bigint[])`,
      [ids],
    );
    return rows.map(userOf);
  }

  async setPassword(userId: number, passwordHash: string): Promise<void> {
    await this.em.execute(`update identity.users set password_hash = ?, updated_at = now() where id = ?`, [
      passwordHash,
      userId,
    ]);
  }

  async markVerified(userId: number): Promise<void> {
    await this.em.execute(
      `update identity.users set verified_at = coalesce(verified_at, now()), updated_at = now() where id = ?`,
      [userId],
    );
  }

  async createSession(fields: {
    userId: number;
    tokenHash: Buffer;
    device: string;
    absoluteDays: number;
  }): Promise<SessionRow> {
    const rows = await this.em.execute<RawSession[]>(
      `insert into identity.sessions (user_id, token_hash, device, expires_at)
       values (?, ?, ?, now() + make_interval(days => ?)) returning ${SESSION}`,
      [fields.userId, fields.tokenHash, fields.device, fields.absoluteDays],
    );
    return sessionOf(rows[0]!);
  }

  /**
   * The live session of a token: not revoked, not past its absolute end, seen within the idle
   * limit. Its last sighting is written at most once a minute, so reading a session is not a
   * write per request.
   */
  async liveSession(tokenHash: Buffer, idleDays: number): Promise<SessionRow | null> {
    const rows = await this.em.execute<RawSession[]>(
      `select ${SESSION} from identity.sessions
        where token_hash = ? and revoked_at is null and expires_at > now()
          and last_seen_at > now() - make_interval(days => ?)`,
      [tokenHash, idleDays],
    );
    const session = rows[0] === undefined ? null : sessionOf(rows[0]);
    if (session !== null && Date.now() - session.lastSeenAt.getTime() > 60_000) {
      await this.em.execute(`update identity.sessions set last_seen_at = now() where id = ?`, [session.id]);
    }
    return session;
  }

  /** Locks the user's row until the transaction ends, so two sign-ins of one person count one after the other. */
  async lockUser(userId: number): Promise<void> {
    await this.em.execute('select id from identity.users where id = ? for update', [userId]);
  }

  /**
   * Ends the user's live sessions but the `keep` most recently used (last seen, then newest);
   * returns those it ended.
   */
  async endLeastRecentlyUsed(
    userId: number,
    keep: number,
    idleDays: number,
  ): Promise<{ id: number; device: string }[]> {
    const rows = await this.em.execute<{ id: string; device: string }[]>(
      `update identity.sessions set revoked_at = now()
        where id in (
          select id from identity.sessions
           where user_id = ? and revoked_at is null and expires_at > now()
             and last_seen_at > now() - make_interval(days => ?)
           order by last_seen_at desc, id desc offset ?)
        returning id, device`,
      [userId, idleDays, keep],
    );
    return rows.map((row) => ({ id: Number(row.id), device: row.device }));
  }

  async liveSessionsOf(userId: number, idleDays: number): Promise<SessionRow[]> {
    const rows = await this.em.execute<RawSession[]>(
      `select ${SESSION} from identity.sessions
        where user_id = ? and revoked_at is null and expires_at > now()
          and last_seen_at > now() - make_interval(days => ?)
        order by last_seen_at desc, id desc`,
      [userId, idleDays],
    );
    return rows.map(sessionOf);
  }

  /** Ends one session of the user; false when it is not theirs or already over. */
  async revokeSession(userId: number, sessionId: number): Promise<boolean> {
    const rows = await this.em.execute<{ id: string }[]>(
      `update identity.sessions set revoked_at = now()
        where id = ? and user_id = ? and revoked_at is null returning id`,
      [sessionId, userId],
    );
    return rows.length > 0;
  }

  /** Ends every session of the user but `keep` (none when null); returns how many ended. */
  async revokeSessionsOf(userId: number, keep: number | null): Promise<number> {
    const rows = await this.em.execute<{ id: string }[]>(
      `update identity.sessions set revoked_at = now()
        where user_id = ? and revoked_at is null and (?::bigint is null or id <> ?::bigint) returning id`,
      [userId, keep, keep],
    );
    return rows.length;
  }

  async createOneTimeToken(
    userId: number,
    kind: OneTimeKind,
    tokenHash: Buffer,
    minutes: number,
  ): Promise<void> {
    await this.em.execute(
      `insert into identity.one_time_tokens (user_id, kind, token_hash, expires_at)
       values (?, ?, ?, now() + make_interval(mins => ?))`,
      [userId, kind, tokenHash, minutes],
    );
  }

  /** Uses a token once: the user it was made for, or null when unknown, used or expired. */
  async consumeOneTimeToken(kind: OneTimeKind, tokenHash: Buffer): Promise<number | null> {
    const rows = await this.em.execute<{ user_id: string }[]>(
      `update identity.one_time_tokens set used_at = now()
        where token_hash = ? and kind = ? and used_at is null and expires_at > now() returning user_id`,
      [tokenHash, kind],
    );
    return rows[0] === undefined ? null : Number(rows[0].user_id);
  }

  /** A new reset link makes the earlier ones of the same user useless. */
  async retireOneTimeTokens(userId: number, kind: OneTimeKind): Promise<void> {
    await this.em.execute(
      `update identity.one_time_tokens set used_at = now() where user_id = ? and kind = ? and used_at is null`,
      [userId, kind],
    );
  }

  /** The person's own log: sessions ended, password changed or reset, email verified. */
  get audit(): AuditLog {
    return new AuditLog(this.em, USER_AUDIT);
  }

  transaction<T>(work: (repository: IdentityRepository) => Promise<T>): Promise<T> {
    return this.em.transactional((em) => work(new IdentityRepository(em)));
  }
}
