import { Arg, Int, Mutation, Resolver } from 'type-graphql';
import type { TicketAccess } from '../access';
import { LEASED_NUMBERS_PER_DAY } from '../venues';
import { NUMBER_LEASE_DEFAULT, NUMBER_LEASE_MAX, type NumberLeaseService } from './number-lease.service';
import { TicketNumberLeaseType } from './number-lease.type';

/** Leases of a branch's upcoming numbers, for a board that may lose its connection. */
@Resolver()
export class NumberLeaseResolver {
  constructor(
    private readonly leases: NumberLeaseService,
    private readonly access: TicketAccess,
  ) {}

  @Mutation(() => TicketNumberLeaseType, {
    description: `Takes the branch’s next numbers ahead, skipping those an open ticket holds; the branch’s sequence goes on after them. Needs tickets:write (a board device, a member working the branch, a key). At most ${LEASED_NUMBERS_PER_DAY} numbers a caller and venue day, else BAD_USER_INPUT on count.`,
  })
  async reserveTicketNumbers(
    @Arg('count', () => Int, {
      defaultValue: NUMBER_LEASE_DEFAULT,
      description: `How many numbers, 1 to ${NUMBER_LEASE_MAX}.`,
    })
    count: number,
  ): Promise<TicketNumberLeaseType> {
    const principal = await this.access.require('tickets:write');
    return this.leases.reserve(principal, count);
  }
}
