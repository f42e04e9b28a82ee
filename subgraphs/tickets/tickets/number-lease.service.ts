import type { EntityManager } from '../../../common/database';
import { NotFoundError, ValidationError } from '../../../common/errors';
import { say } from '../../../common/messages';
import type { Principal } from '../access';
import { LEASED_NUMBERS_PER_DAY } from '../venues';
import { NumberLeaseRepository, type LeaseHolder } from './number-lease.repository';

/** Numbers a lease takes unless asked otherwise, and the most one may take. */
export const NUMBER_LEASE_DEFAULT = 20;
export const NUMBER_LEASE_MAX = 50;

/** Upcoming numbers of a branch, the caller's to give to tickets it creates (offline). */
export interface NumberLease {
  numbers: string[];
  /** The venue's day the numbers belong to, YYYY-MM-DD. */
  day: string;
  /** The end of that day in the venue's timezone: the counter starts again at 1 then. */
  validUntil: Date;
  /** The calling board device's number prefix; null for any other caller. */
  prefix: string | null;
}

/**
 * Leases of a branch's upcoming numbers (`reserveTicketNumbers`). A lease takes the next numbers
 * of the branch's own sequence that no open ticket holds, and the sequence goes on after them, so
 * no automatic number and no other lease is ever one of them; a create that names a leased number
 * (as a number typed by hand) gets it. At most LEASED_NUMBERS_PER_DAY a caller and venue day.
 */
export class NumberLeaseService {
  private readonly leases: NumberLeaseRepository;

  constructor(em: EntityManager) {
    this.leases = new NumberLeaseRepository(em);
  }

  async reserve(principal: Principal, count: number): Promise<NumberLease> {
    if (!Number.isInteger(count) || count < 1 || count > NUMBER_LEASE_MAX) {
      throw new ValidationError({
        count: [say('field.between', { field: 'count', min: 1, max: NUMBER_LEASE_MAX })],
      });
    }
    const holder = holderOf(principal);
    return this.leases.transaction(async (leases) => {
      const day = await leases.holdDay(principal.branchId);
      if (day === null) throw new NotFoundError(say('venue.branch_not_found'));
      if ((await leases.leasedOn(principal.branchId, holder, day.day)) + count > LEASED_NUMBERS_PER_DAY) {
        throw new ValidationError({
          count: [say('ticket.leased_numbers_cap', { max: LEASED_NUMBERS_PER_DAY })],
        });
      }
      const numbers = await leases.take(principal.branchId, day, count, holder);
      const prefix =
        principal.board === true && principal.keyId !== null
          ? await leases.numberPrefixOf(principal.keyId)
          : null;
      return { numbers: numbers.map(String), day: day.day, validUntil: day.validUntil, prefix };
    });
  }
}

function holderOf(principal: Principal): LeaseHolder {
  if (principal.keyId !== null) return { keyId: principal.keyId };
  if (principal.userId !== undefined) return { userId: principal.userId };
  throw new Error('a principal with neither a key nor a person');
}
