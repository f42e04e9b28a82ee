import type { TextLanguage } from '../../../common/language';
import type { EntityManager } from '../../../common/database';
import { Branch } from './branch.entity';
import { Venue, type VenueLanguage } from './venue.entity';

/** A venue's fields as the service has checked and defaulted them. */
export interface VenueFields {
  name: string;
  language: VenueLanguage;
  timezone: string;
  smsEnabled: boolean;
}

/** Venues and their branches. */
export class VenueRepository {
  constructor(private readonly em: EntityManager) {}

  async create(fields: VenueFields): Promise<Venue> {
    const venue = this.em.create(Venue, fields);
    await this.em.flush();
    return venue;
  }

  find(id: number): Promise<Venue | null> {
    return this.em.findOne(Venue, { id });
  }

  /** For a venue that must exist (a ticket's); a missing one is a fault, not a 404. */
  findOrFail(id: number): Promise<Venue> {
    return this.em.findOneOrFail(Venue, { id });
  }

  /** Writes what changed on a venue this repository loaded. */
  async save(venue: Venue): Promise<void> {
    await this.em.persist(venue).flush();
  }

  /** What the texts of a venue's events need; a venue gone meanwhile reads as unnamed and Arabic. */
  async textsOf(id: number): Promise<{ name: string; language: TextLanguage }> {
    const [venue] = await this.em.execute<{ name: string; language: TextLanguage }[]>(
      'select name, language from tickets.venues where id = ?',
      [id],
    );
    return { name: venue?.name ?? '', language: venue?.language ?? 'ar' };
  }

  /** Locks the venue's row until the transaction ends; false when there is no such venue. */
  async lock(id: number): Promise<boolean> {
    const rows = await this.em.execute<{ id: string }[]>(
      'select id from tickets.venues where id = ? for update',
      [id],
    );
    return rows.length > 0;
  }

  async branchCount(venueId: number): Promise<number> {
    const [row] = await this.em.execute<{ count: string }[]>(
      'select count(*) as count from tickets.branches where venue_id = ?',
      [venueId],
    );
    return Number(row?.count ?? 0);
  }

  async createBranch(venueId: number, name: string): Promise<Branch> {
    const branch = this.em.create(Branch, { venueId, name });
    await this.em.flush();
    return branch;
  }

  findBranch(id: number): Promise<Branch | null> {
    return this.em.findOne(Branch, { id });
  }

  /** For a branch that must exist (a ticket's); a missing one is a fault, not a 404. */
  findBranchOrFail(id: number): Promise<Branch> {
    return this.em.findOneOrFail(Branch, { id });
  }
}
