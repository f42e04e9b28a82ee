import type { EntityManager } from '../../../common/database';
import type { TextLanguage } from '../../../common/language';
import { TICKET_SCOPES } from '../access';

/** The most numbers a display is given: more than any screen shows, and the size `DisplayBoard.tickets` declares. */
export const DISPLAY_TICKETS_MAX = 100;

/** A board device as the panel lists it: a branch key of kind `board`. */
export interface BoardDevice {
  id: number;
  branchId: number;
  branchName: string;
  venueId: number;
  name: string;
  /** The key's shown prefix once paired; null while the pairing code waits. */
  prefix: string | null;
  /** The prefix of the numbers the board offers once its lease has run out offline; null: none. */
  numberPrefix: string | null;
  /** Whether the board itself calls a ready number while it cannot reach the platform. */
  callsWhenOffline: boolean;
  createdByUserId: number | null;
  pairedAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface Display {
  id: number;
  branchId: number;
  branchName: string;
  venueId: number;
  name: string;
  language: TextLanguage;
  chime: boolean;
  speech: boolean;
  readyMinutes: number;
  createdByUserId: number | null;
  lastSeenAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

/** A ticket as a room's screen may show it: a number and where it is, nothing about the customer. */
export interface DisplayTicket {
  id: number;
  number: string;
  status: 'waiting' | 'ready';
  readyAt: Date | null;
  ringCount: number;
  updatedAt: Date;
}

/** A board device's own settings, as created or changed (BoardService.deviceSettingsOf). */
export interface BoardDeviceSettings {
  name: string;
  numberPrefix: string | null;
  callsWhenOffline: boolean;
}

export interface DisplaySettings {
  name: string;
  language: TextLanguage;
  chime: boolean;
  speech: boolean;
  readyMinutes: number;
}

type Row = Record<string, unknown>;

const when = (value: unknown): Date | null => (value === null ? null : new Date(value as string));

function deviceOf(row: Row): BoardDevice {
  return {
    id: Number(row.id),
    branchId: Number(row.branch_id),
    branchName: row.branch_name as string,
    venueId: Number(row.venue_id),
    name: row.name as string,
    prefix: row.paired_at === null ? null : (row.prefix as string),
    numberPrefix: (row.number_prefix as string | null) ?? null,
    callsWhenOffline: row.calls_when_offline === true,
    createdByUserId: row.created_by_user_id === null ? null : Number(row.created_by_user_id),
    pairedAt: when(row.paired_at),
    lastUsedAt: when(row.last_used_at),
    revokedAt: when(row.revoked_at),
    createdAt: new Date(row.created_at as string),
  };
}

function displayOf(row: Row): Display {
  return {
    id: Number(row.id),
    branchId: Number(row.branch_id),
    branchName: row.branch_name as string,
    venueId: Number(row.venue_id),
    name: row.name as string,
    language: row.language as TextLanguage,
    chime: row.chime as boolean,
    speech: row.speech as boolean,
    readyMinutes: Number(row.ready_minutes),
    createdByUserId: row.created_by_user_id === null ? null : Number(row.created_by_user_id),
    lastSeenAt: when(row.last_seen_at),
    revokedAt: when(row.revoked_at),
    createdAt: new Date(row.created_at as string),
  };
}

/**
 * A device in use, which holds a place of the venue's board devices: not revoked, and paired or
 * still able to be (its code unused and valid). One whose code ran out unpaired can never be used.
 */
const LIVE_DEVICE = `k.revoked_at is null and (k.paired_at is not null or exists (
  select 1 from tickets.board_pairings p where p.api_key_id = k.id and p.used_at is null and p.expires_at > now()))`;

const DEVICE_COLUMNS = `k.id, k.branch_id, b.name as branch_name, b.venue_id, k.name, k.prefix,
  k.number_prefix, k.calls_when_offline, k.created_by_user_id, k.paired_at, k.last_used_at, k.revoked_at, k.created_at`;
const DISPLAY_COLUMNS = `d.id, d.branch_id, b.name as branch_name, b.venue_id, d.name, d.language, d.chime, d.speech, d.ready_minutes,
  d.created_by_user_id, d.last_seen_at, d.revoked_at, d.created_at`;

/** Board devices (`tickets.api_keys` of kind board, and their pairing codes) and displays. */
export class BoardRepository {
  constructor(private readonly em: EntityManager) {}

  /** A device waiting to be paired: a key no one holds yet, and its pairing code's hash. */
  async createDevice(
    fields: BoardDeviceSettings & {
      branchId: number;
      userId: number;
      placeholderHash: Buffer;
      codeHash: Buffer;
      codeMinutes: number;
    },
  ): Promise<BoardDevice> {
    const id = await this.em.transactional(async (em) => {
      const [row] = await em.execute<{ id: string }[]>(
        `insert into tickets.api_keys (branch_id, name, scopes, prefix, key_hash, kind, created_by_user_id, number_prefix, calls_when_offline)
         values (?, ?, ?::text[], '', ?, 'board', ?, ?, ?) returning id`,
        [
          fields.branchId,
          fields.name,
          // Every ticket scope: a device does the tickets work a branch key may.
          `{${TICKET_SCOPES.join(',')}}`,
          fields.placeholderHash,
          fields.userId,
          fields.numberPrefix,
          fields.callsWhenOffline,
        ],
      );
      await em.execute(
        `insert into tickets.board_pairings (api_key_id, code_hash, expires_at)
         values (?, ?, now() + make_interval(mins => ?))`,
        [row!.id, fields.codeHash, fields.codeMinutes],
      );
      return Number(row!.id);
    });
    return (await this.device(id))!;
  }

  /**
   * Redeems a pairing code once, before it expires, for a device not revoked meanwhile: the device
   * takes the new key. Null for anything else.
   */
  async pair(codeHash: Buffer, key: { prefix: string; hash: Buffer }): Promise<number | null> {
    return this.em.transactional(async (em) => {
      const [pairing] = await em.execute<{ api_key_id: string }[]>(
        `update tickets.board_pairings set used_at = now()
          where code_hash = ? and used_at is null and expires_at > now()
          returning api_key_id`,
        [codeHash],
      );
      if (pairing === undefined) return null;
      const [row] = await em.execute<{ id: string }[]>(
        `update tickets.api_keys set key_hash = ?, prefix = ?, paired_at = now()
          where id = ? and kind = 'board' and revoked_at is null returning id`,
        [key.hash, key.prefix, pairing.api_key_id],
      );
      return row === undefined ? null : Number(row.id);
    });
  }

  /** Whatever `work` does here commits together or not at all. */
  transaction<T>(work: (boards: BoardRepository, em: EntityManager) => Promise<T>): Promise<T> {
    return this.em.transactional((em) => work(new BoardRepository(em), em));
  }

  /** The venue's devices in use (LIVE_DEVICE), oldest first. */
  async devicesOf(venueId: number): Promise<BoardDevice[]> {
    const rows = await this.em.execute<Row[]>(
      `select ${DEVICE_COLUMNS}
         from tickets.api_keys k join tickets.branches b on b.id = k.branch_id
        where b.venue_id = ? and k.kind = 'board' and ${LIVE_DEVICE} order by k.id`,
      [venueId],
    );
    return rows.map(deviceOf);
  }

  async liveDeviceCount(venueId: number): Promise<number> {
    const [row] = await this.em.execute<{ count: string }[]>(
      `select count(*) as count from tickets.api_keys k join tickets.branches b on b.id = k.branch_id
        where b.venue_id = ? and k.kind = 'board' and ${LIVE_DEVICE}`,
      [venueId],
    );
    return Number(row?.count ?? 0);
  }

  /** A board device, revoked or not; null for any other id. */
  async device(id: number): Promise<BoardDevice | null> {
    const [row] = await this.em.execute<Row[]>(
      `select ${DEVICE_COLUMNS}
         from tickets.api_keys k join tickets.branches b on b.id = k.branch_id
        where k.id = ? and k.kind = 'board'`,
      [id],
    );
    return row === undefined ? null : deviceOf(row);
  }

  /** Changes a device's own settings. */
  async updateDevice(id: number, settings: BoardDeviceSettings): Promise<void> {
    await this.em.execute(
      `update tickets.api_keys set name = ?, number_prefix = ?, calls_when_offline = ? where id = ? and kind = 'board'`,
      [settings.name, settings.numberPrefix, settings.callsWhenOffline, id],
    );
  }

  /**
   * Whether another device of the branch not revoked has the number prefix. Run in the transaction
   * that writes it, after `lockBranch`, so two changes of one branch's prefixes check one after
   * another (the unique index `api_keys_board_prefix_unique` holds it whatever the code does).
   */
  async numberPrefixTaken(branchId: number, prefix: string, exceptId: number | null): Promise<boolean> {
    const [row] = await this.em.execute<{ taken: boolean }[]>(
      `select exists (select 1 from tickets.api_keys where branch_id = ? and kind = 'board'
          and revoked_at is null and number_prefix = ? and id is distinct from ?) as taken`,
      [branchId, prefix, exceptId],
    );
    return row?.taken === true;
  }

  /** Holds the branch's row until the transaction ends. */
  async lockBranch(branchId: number): Promise<void> {
    await this.em.execute('select id from tickets.branches where id = ? for update', [branchId]);
  }

  /** Revokes a device and any pairing code of it still waiting; the hash of its key, to announce. */
  async revokeDevice(id: number): Promise<Buffer> {
    const rows = await this.em.execute<{ key_hash: Buffer }[]>(
      `update tickets.api_keys set revoked_at = coalesce(revoked_at, now()) where id = ? and kind = 'board'
        returning key_hash`,
      [id],
    );
    await this.em.execute(
      `update tickets.board_pairings set used_at = coalesce(used_at, now()) where api_key_id = ?`,
      [id],
    );
    // The device was found by id before this, and devices are revoked, never deleted.
    return rows[0]!.key_hash;
  }

  async createDisplay(
    fields: DisplaySettings & { branchId: number; userId: number; tokenHash: Buffer },
  ): Promise<Display> {
    const [row] = await this.em.execute<{ id: string }[]>(
      `insert into tickets.displays (branch_id, name, language, chime, speech, ready_minutes, token_hash, created_by_user_id)
       values (?, ?, ?, ?, ?, ?, ?, ?) returning id`,
      [
        fields.branchId,
        fields.name,
        fields.language,
        fields.chime,
        fields.speech,
        fields.readyMinutes,
        fields.tokenHash,
        fields.userId,
      ],
    );
    return (await this.display(Number(row!.id)))!;
  }

  async display(id: number): Promise<Display | null> {
    const [row] = await this.em.execute<Row[]>(
      `select ${DISPLAY_COLUMNS} from tickets.displays d join tickets.branches b on b.id = d.branch_id
        where d.id = ?`,
      [id],
    );
    return row === undefined ? null : displayOf(row);
  }

  /** The live display of a token, noting that it was seen (at most once a minute). */
  async liveDisplayByToken(tokenHash: Buffer): Promise<Display | null> {
    const [row] = await this.em.execute<Row[]>(
      `select ${DISPLAY_COLUMNS} from tickets.displays d join tickets.branches b on b.id = d.branch_id
        where d.token_hash = ? and d.revoked_at is null`,
      [tokenHash],
    );
    if (row === undefined) return null;
    await this.em.execute(
      `update tickets.displays set last_seen_at = now()
        where id = ? and (last_seen_at is null or last_seen_at < now() - interval '1 minute')`,
      [row.id],
    );
    return displayOf(row);
  }

  /** The venue's displays not revoked, oldest first. */
  async displaysOf(venueId: number): Promise<Display[]> {
    const rows = await this.em.execute<Row[]>(
      `select ${DISPLAY_COLUMNS} from tickets.displays d join tickets.branches b on b.id = d.branch_id
        where b.venue_id = ? and d.revoked_at is null order by d.id`,
      [venueId],
    );
    return rows.map(displayOf);
  }

  async liveDisplayCount(venueId: number): Promise<number> {
    const [row] = await this.em.execute<{ count: string }[]>(
      `select count(*) as count from tickets.displays d join tickets.branches b on b.id = d.branch_id
        where b.venue_id = ? and d.revoked_at is null`,
      [venueId],
    );
    return Number(row?.count ?? 0);
  }

  async updateDisplay(id: number, settings: DisplaySettings): Promise<void> {
    await this.em.execute(
      `update tickets.displays set name = ?, language = ?, chime = ?, speech = ?, ready_minutes = ? where id = ?`,
      [settings.name, settings.language, settings.chime, settings.speech, settings.readyMinutes, id],
    );
  }

  async revokeDisplay(id: number): Promise<void> {
    await this.em.execute(
      `update tickets.displays set revoked_at = coalesce(revoked_at, now()) where id = ?`,
      [id],
    );
  }

  /**
   * The branch's open tickets a display shows: waiting, and ready within `readyMinutes`, at most
   * DISPLAY_TICKETS_MAX, ready ones first (what the customers at the screen wait to read), then
   * the oldest waiting; given oldest first.
   */
  async displayTickets(branchId: number, readyMinutes: number): Promise<DisplayTicket[]> {
    const rows = await this.em.execute<Row[]>(
      `select * from (
         select id, number, status, ready_at, ring_count, updated_at from tickets.tickets
          where branch_id = ?
            and (status = 'waiting' or (status = 'ready' and ready_at > now() - make_interval(mins => ?)))
          order by status = 'ready' desc, id
          limit ?
       ) shown order by id`,
      [branchId, readyMinutes, DISPLAY_TICKETS_MAX],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      number: row.number as string,
      status: row.status as DisplayTicket['status'],
      readyAt: when(row.ready_at),
      ringCount: Number(row.ring_count),
      updatedAt: new Date(row.updated_at as string),
    }));
  }

  async venueName(venueId: number): Promise<string> {
    const [row] = await this.em.execute<{ name: string }[]>(`select name from tickets.venues where id = ?`, [
      venueId,
    ]);
    return row?.name ?? '';
  }
}
