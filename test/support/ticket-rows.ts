import { randomBytes } from 'node:crypto';
import type { EntityManager } from '../../common/database';
import type { NewTicketRow } from '../../subgraphs/tickets/tickets';
import { VenueService } from '../../subgraphs/tickets/venues';

/** A new venue with one branch, for specs that write tickets straight through the repositories. */
export async function newVenueBranch(em: EntityManager): Promise<{ branchId: number; venueId: number }> {
  const venues = new VenueService(em);
  const venue = await venues.create({ name: 'Kebab Erbil' });
  return { branchId: (await venues.createBranch(venue.id, 'Main counter')).id, venueId: venue.id };
}

/** A ticket row as the service would hand it to the repository: a fresh token and a phone. */
export function newTicketRow(branchId: number, number: string): NewTicketRow {
  return {
    branchId,
    number,
    externalId: null,
    token: randomBytes(24).toString('base64url'),
    customerName: null,
    customerPhone: '+9647701234567',
    note: null,
  };
}
