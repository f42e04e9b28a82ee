import type { EntityManager } from '../../../common/database';

/** Who takes a lease: a key or board device, else a signed-in member working the branch. */
export type LeaseHolder = { keyId: number } | { userId: number };

/** The branch's numbering day as a lease reads it, with the branch's row held. */
export interface NumberingDay {
  /** The venue's day (its timezone), YYYY-MM-DD. */
  day: string;
  /** The last number the branch gave that day; 0 when it gave none yet. */
  last: number;
  /** The end of that day in the venue's timezone, when the counter starts again at 1. */
  validUntil: Date;
}

/** An open ticket's number, as a number when it is one (the cast only where the text is one). */
const OPEN_NUMBERS = `select case when h.number ~ '^[1-9][0-9]{0,8}$' then h.number::integer end as n
  from tickets.tickets h where h.branch_id = ? and h.status in ('waiting', 'ready')`;

/**
 * Leases of upcoming ticket numbers (`tickets.number_leases`): a board takes some of its branch's
 * sequence ahead, so the tickets it creates offline keep the numbers their customers were told.
 */
export class NumberLeaseRepository {
  constructor(private readonly em: EntityManager) {}

  /** Runs `work` in one transaction: the branch's row stays held until it commits. */
  transaction<T>(work: (leases: NumberLeaseRepository) => Promise<T>): Promise<T> {
    return this.em.transactional((tx) => work(new NumberLeaseRepository(tx)));
  }

  /**
   * Holds the branch's row (as every automatic number does, TAKE_NEXT_NUMBER) and reads its day in
   * the venue's timezone and the last number given that day. Null when there is no such branch.
   */
  async holdDay(branchId: number): Promise<NumberingDay | null> {
    const [row] = await this.em.execute<{ day: string; last: number; valid_until: Date | string }[]>(
      `select to_char(d.today, 'YYYY-MM-DD') as day,
              case when b.number_day = d.today then b.number_counter else 0 end as last,
              ((d.today + 1)::timestamp at time zone v.timezone) as valid_until
         from tickets.branches b
         join tickets.venues v on v.id = b.venue_id
         cross join lateral (select (now() at time zone v.timezone)::date as today) d
        where b.id = ?
          for update of b`,
      [branchId],
    );
    if (row === undefined) return null;
    return { day: row.day, last: Number(row.last), validUntil: new Date(row.valid_until) };
  }

  /** How many numbers the holder leased at the branch on the day. */
  async leasedOn(branchId: number, holder: LeaseHolder, day: string): Promise<number> {
    const [column, id] = 'keyId' in holder ? ['api_key_id', holder.keyId] : ['user_id', holder.userId];
    const [row] = await this.em.execute<{ leased: number }[]>(
      `select coalesce(sum(cardinality(numbers)), 0)::int as leased from tickets.number_leases
        where branch_id = ? and day = ?::date and ${column} = ?`,
      [branchId, day, id],
    );
    return row?.leased ?? 0;
  }

  /**
   * Takes the next `count` numbers after `from.last` that no open ticket of the branch holds, moves
   * the branch's counter to the last of them (so its sequence goes on after them) and records the
   * lease, in one statement, under the row `holdDay` holds. Read after the hold, so every ticket a
   * create committed before it is seen; each held number displaces one, so `count` plus the open
   * tickets bounds the numbers to look at.
   */
  async take(branchId: number, from: NumberingDay, count: number, holder: LeaseHolder): Promise<number[]> {
    const [row] = await this.em.execute<{ numbers: number[] }[]>(
      `with held as (${OPEN_NUMBERS}),
       picked as (
         select c.n from generate_series(?::integer + 1, ?::integer + ?::integer + (select count(*)::integer from held)) c(n)
          where not exists (select 1 from held where held.n = c.n)
          order by c.n limit ?
       ), moved as (
         update tickets.branches set number_counter = (select max(n) from picked), number_day = ?::date,
                updated_at = now()
          where id = ? returning id
       )
       insert into tickets.number_leases (branch_id, api_key_id, user_id, day, numbers)
       select ?, ?, ?, ?::date, array_agg(n order by n) from picked
       returning numbers`,
      [
        branchId,
        from.last,
        from.last,
        count,
        count,
        from.day,
        branchId,
        branchId,
        'keyId' in holder ? holder.keyId : null,
        'userId' in holder ? holder.userId : null,
        from.day,
      ],
    );
    return (row?.numbers ?? []).map(Number);
  }

  /** A board device's number prefix; null for a device without one, or any other key. */
  async numberPrefixOf(keyId: number): Promise<string | null> {
    const [row] = await this.em.execute<{ number_prefix: string | null }[]>(
      `select number_prefix from tickets.api_keys where id = ? and kind = 'board'`,
      [keyId],
    );
    return row?.number_prefix ?? null;
  }
}
