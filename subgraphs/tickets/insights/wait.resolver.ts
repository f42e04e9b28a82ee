import { FieldResolver, Resolver, Root } from 'type-graphql';
import { Cost } from '../../../common/cost.graphql';
import { NotFoundError } from '../../../common/errors';
import { say } from '../../../common/messages';
import type { TicketAccess } from '../access';
import { PublicTicketType } from '../tickets';
import { BranchType } from '../venues';
import { estimateReadyAt } from './estimate';
import type { WaitRepository } from './wait.repository';
import { BranchWaitType } from './wait.type';

/**
 * What a read of a branch's recent tickets weighs in the gateway's estimate (the board's wait, a
 * customer's estimate): one statement over the waiting ones and the last hours' ready ones, which
 * took about as long as 50 fields of a page of tickets (docs/API-DECISIONS.md, "Declared list sizes").
 */
export const RECENT_TICKETS_COST = 50;

/** The customer's estimate; the ticket's token, which found the ticket, is the credential. */
@Resolver(() => PublicTicketType)
export class TicketEstimateResolver {
  constructor(private readonly waits: WaitRepository) {}

  @Cost(RECENT_TICKETS_COST)
  @FieldResolver(() => Date, {
    nullable: true,
    description:
      'When the order will likely be ready, from the branch’s recent prep times and the tickets waiting ahead of it (docs/API-DECISIONS.md, “The customer’s estimate”); null once it is ready, collected or cancelled, and null when fewer than 5 of the branch’s tickets became ready in the last 2 hours.',
  })
  async estimatedReadyAt(@Root() ticket: PublicTicketType): Promise<Date | null> {
    if (ticket.status !== 'waiting') return null;
    const now = new Date();
    const inputs = await this.waits.estimateInputs(
      { id: ticket.ticketId, branchId: ticket.branchId, createdAt: ticket.createdAt },
      now,
    );
    const at = estimateReadyAt({ now: now.getTime(), createdAt: ticket.createdAt.getTime(), ...inputs });
    return at === null ? null : new Date(Math.round(at));
  }
}

/** The live wait of a branch, for whoever may read the branch: its members, keys and board devices. */
@Resolver(() => BranchType)
export class BranchWaitResolver {
  constructor(
    private readonly waits: WaitRepository,
    private readonly access: TicketAccess,
  ) {}

  @Cost(RECENT_TICKETS_COST)
  @FieldResolver(() => BranchWaitType, {
    description:
      'How long customers wait now: the count, the oldest, the last hour’s median, against the venue’s waitAlertMinutes. The branch’s members, its keys with tickets:read and its board devices.',
  })
  async wait(@Root() branch: BranchType): Promise<BranchWaitType> {
    const branchId = Number(branch.id);
    if (!(await this.access.canSeeBranch(branchId))) throw new NotFoundError(say('venue.branch_not_found'));
    const now = new Date();
    const wait = await this.waits.branchWait(branchId, now);
    if (wait === null) throw new NotFoundError(say('venue.branch_not_found'));
    const alertSeconds = wait.alertMinutes * 60;
    const oldestSeconds =
      wait.oldestWaitingSince === null ? 0 : (now.getTime() - wait.oldestWaitingSince.getTime()) / 1000;
    return {
      waiting: wait.waiting,
      oldestWaitingSince: wait.oldestWaitingSince,
      medianWaitSeconds: wait.medianWaitSeconds,
      readyLastHour: wait.readyLastHour,
      alertMinutes: wait.alertMinutes,
      alert: oldestSeconds >= alertSeconds || (wait.medianWaitSeconds ?? 0) >= alertSeconds,
    };
  }
}
