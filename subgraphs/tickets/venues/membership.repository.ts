import type { EntityManager } from '../../../common/database';
import { Venue } from './venue.entity';

export const VENUE_ROLES = ['OWNER', 'MANAGER', 'STAFF'] as const;
export type VenueRole = (typeof VENUE_ROLES)[number];

export interface Membership {
  venueId: number;
  userId: number;
  role: VenueRole;
  createdAt: Date;
}

interface RawMembership {
  venue_id: string;
  user_id: string;
  role: VenueRole;
  created_at: Date | string;
}

const date = (value: Date | string): Date => new Date(value);

function membershipOf(row: RawMembership): Membership {
  return {
    venueId: Number(row.venue_id),
    userId: Number(row.user_id),
    role: row.role,
    createdAt: date(row.created_at),
  };
}

/** `tickets.venue_members`: who works at a venue, in which role; and the venue's branches. */
export class MembershipRepository {
  constructor(private readonly em: EntityManager) {}

  async add(venueId: number, userId: number, role: VenueRole): Promise<void> {
    await this.em.execute(
      `insert into tickets.venue_members (venue_id, user_id, role) values (?, ?, ?)
       on conflict (venue_id, user_id) do update set role = excluded.role`,
      [venueId, userId, role],
    );
  }

  async roleOf(venueId: number, userId: number): Promise<VenueRole | null> {
    const rows = await this.em.execute<{ role: VenueRole }[]>(
      `select role from tickets.venue_members where venue_id = ? and user_id = ?`,
      [venueId, userId],
    );
    return rows[0]?.role ?? null;
  }

  /** The venues the user is a member of, each with their role there, oldest venue first, in one statement. */
  async venuesOfUser(userId: number): Promise<{ venue: Venue; role: VenueRole }[]> {
    const rows = await this.em.execute<(Record<string, unknown> & { member_role: VenueRole })[]>(
      `select v.*, m.role as member_role from tickets.venue_members m
         join tickets.venues v on v.id = m.venue_id
        where m.user_id = ? order by m.venue_id`,
      [userId],
    );
    return rows.map(({ member_role: role, ...columns }) => ({ venue: this.em.map(Venue, columns), role }));
  }

  async ofVenue(venueId: number): Promise<Membership[]> {
    const rows = await this.em.execute<RawMembership[]>(
      `select venue_id, user_id, role, created_at from tickets.venue_members
        where venue_id = ? order by created_at, user_id`,
      [venueId],
    );
    return rows.map(membershipOf);
  }

  async branchesOf(venueId: number): Promise<{ id: number; name: string; venueId: number }[]> {
    const rows = await this.em.execute<{ id: string; name: string }[]>(
      `select id, name from tickets.branches where venue_id = ? order by id`,
      [venueId],
    );
    return rows.map((row) => ({ id: Number(row.id), name: row.name, venueId }));
  }

  async renameBranch(branchId: number, name: string): Promise<void> {
    await this.em.execute(`update tickets.branches set name = ? where id = ?`, [name, branchId]);
  }

  async branchVenue(branchId: number): Promise<number | null> {
    const rows = await this.em.execute<{ venue_id: string }[]>(
      `select venue_id from tickets.branches where id = ?`,
      [branchId],
    );
    return rows[0] === undefined ? null : Number(rows[0].venue_id);
  }
}

export interface Invitation {
  id: number;
  venueId: number;
  email: string;
  role: VenueRole;
}

/** `tickets.venue_invitations` and the changes of members that must leave an owner. */
export class InvitationRepository {
  constructor(private readonly em: EntityManager) {}

  async create(fields: {
    venueId: number;
    email: string;
    role: VenueRole;
    tokenHash: Buffer;
    invitedBy: number;
    days: number;
  }): Promise<number> {
    const rows = await this.em.execute<{ id: string }[]>(
      `insert into tickets.venue_invitations (venue_id, email, role, token_hash, invited_by_user_id, expires_at)
       values (?, ?, ?, ?, ?, now() + make_interval(days => ?)) returning id`,
      [fields.venueId, fields.email, fields.role, fields.tokenHash, fields.invitedBy, fields.days],
    );
    return Number(rows[0]!.id);
  }

  /** The venue's members and its invitations neither accepted nor expired: what its members' cap counts. */
  async placesHeld(venueId: number): Promise<number> {
    const [row] = await this.em.execute<{ count: string }[]>(
      `select (select count(*) from tickets.venue_members where venue_id = ?)
            + (select count(*) from tickets.venue_invitations
                where venue_id = ? and accepted_at is null and expires_at > now()) as count`,
      [venueId, venueId],
    );
    return Number(row?.count ?? 0);
  }

  /** Redeems a live invitation once; null when unknown, used or expired. */
  async redeem(tokenHash: Buffer, userId: number): Promise<Invitation | null> {
    const rows = await this.em.execute<{ id: string; venue_id: string; email: string; role: VenueRole }[]>(
      `update tickets.venue_invitations set accepted_at = now(), accepted_by_user_id = ?
        where token_hash = ? and accepted_at is null and expires_at > now()
        returning id, venue_id, email, role`,
      [userId, tokenHash],
    );
    const row = rows[0];
    return row === undefined
      ? null
      : { id: Number(row.id), venueId: Number(row.venue_id), email: row.email, role: row.role };
  }

  /** Locks the venue's members until the transaction ends, so two changes cannot both remove the last owner. */
  async lockMembers(venueId: number): Promise<void> {
    await this.em.execute(`select id from tickets.venues where id = ? for update`, [venueId]);
  }

  async ownersBesides(venueId: number, userId: number): Promise<number> {
    const rows = await this.em.execute<{ count: string }[]>(
      `select count(*) as count from tickets.venue_members where venue_id = ? and role = 'OWNER' and user_id <> ?`,
      [venueId, userId],
    );
    return Number(rows[0]?.count ?? 0);
  }

  async setRole(venueId: number, userId: number, role: VenueRole): Promise<boolean> {
    const rows = await this.em.execute<{ user_id: string }[]>(
      `update tickets.venue_members set role = ? where venue_id = ? and user_id = ? returning user_id`,
      [role, venueId, userId],
    );
    return rows.length > 0;
  }

  async remove(venueId: number, userId: number): Promise<boolean> {
    const rows = await this.em.execute<{ user_id: string }[]>(
      `delete from tickets.venue_members where venue_id = ? and user_id = ? returning user_id`,
      [venueId, userId],
    );
    return rows.length > 0;
  }
}
