import type { EntityManager } from '../../../common/database';
import { ConflictError, fieldError, NotFoundError, ValidationError } from '../../../common/errors';
import { say, type MessageId } from '../../../common/messages';
import { VenueRepository } from './venue.repository';

/**
 * The most of each thing one venue may hold, chosen for a large real venue (docs/API-DECISIONS.md,
 * "Caps on what callers make", gives each one's reason). The lists that show them declare the same
 * numbers as their size (`@listSize`), which the composed supergraph carries to the gateway's cost
 * estimate, so a caller cannot make a list outweigh its declared size: changing one is a schema
 * change, never configuration.
 */
export const VENUE_CAPS = {
  branches: 50,
  /** Members and invitations neither accepted nor expired, together. */
  members: 150,
  /** Paired and not revoked, or waiting for their tablet with a pairing code still valid. */
  boardDevices: 100,
  /** Not revoked. */
  displays: 100,
  /** Integrations' keys not revoked (board devices are counted above). */
  apiKeys: 100,
  /** Not deleted. */
  webhookEndpoints: 50,
} as const;

export type VenueCap = keyof typeof VENUE_CAPS;

const REFUSALS: Record<VenueCap, MessageId> = {
  branches: 'venue.branches_cap',
  members: 'venue.members_cap',
  boardDevices: 'board.devices_cap',
  displays: 'board.displays_cap',
  apiKeys: 'venue.api_keys_cap',
  webhookEndpoints: 'webhook.endpoints_cap',
};

/**
 * Run inside the transaction that writes one more `cap` thing, before it writes: the venue's row
 * stays locked until that transaction ends, so the creates of one venue pass here one after
 * another on every replica, each counting what the ones before it committed, and the one past the
 * cap is refused on `field` with nothing written. `held` counts in the same transaction.
 */
export async function claimVenueRoom(
  em: EntityManager,
  venueId: number,
  cap: VenueCap,
  field: string,
  held: () => Promise<number>,
): Promise<void> {
  if (!(await new VenueRepository(em).lock(venueId))) throw new NotFoundError(say('venue.not_found'));
  const max = VENUE_CAPS[cap];
  if ((await held()) >= max) throw new ValidationError(fieldError(field, say(REFUSALS[cap], { max })));
}

/**
 * The most venues one person may belong to, in any role: an owner of a group of brands, each with
 * its branches, or staff at a few. `Query.myVenues` declares it as its size, and the panel's home
 * (every venue with its branches and people) fits the cost limit at it.
 */
export const VENUES_PER_PERSON = 10;

/**
 * The most ticket numbers one caller (a board device, a key, or a signed-in member) may lease at a
 * branch in one venue day (`reserveTicketNumbers`): a busy board's day of orders taken through an
 * outage, 25 leases of 20. Past it the lease is refused on `count`, nothing taken, so no caller can
 * run a branch's sequence up by leasing alone.
 */
export const LEASED_NUMBERS_PER_DAY = 500;

/** Where the advisory locks of one person's memberships live, apart from any other lock's key. */
const PERSON_MEMBERSHIPS_LOCK = 52_001;

/**
 * Run inside the transaction that makes `userId` a member of one more venue, before it writes. No
 * row of the person lives in this schema to lock, so a transaction-scoped advisory lock keyed by
 * the person lines their joins up on every replica; the one past the cap is CONFLICT, nothing written.
 */
export async function claimPersonVenue(em: EntityManager, userId: number): Promise<void> {
  await em.execute('select pg_advisory_xact_lock(?, ?)', [PERSON_MEMBERSHIPS_LOCK, userId]);
  const [row] = await em.execute<{ venues: number }[]>(
    'select count(*)::int as venues from tickets.venue_members where user_id = ?',
    [userId],
  );
  if ((row?.venues ?? 0) >= VENUES_PER_PERSON) {
    throw new ConflictError(say('venue.person_venues_cap', { max: VENUES_PER_PERSON }));
  }
}
