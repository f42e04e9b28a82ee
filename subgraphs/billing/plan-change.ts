import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../../common/errors';
import { parseRecordId } from '../../common/input.rules';
import { say } from '../../common/messages';
import type { Redis } from '../../common/redis';
import type { SubgraphClient } from '../../common/subgraph-call';
import { accessChannel, venuePlanCacheKey } from '../../contracts/tickets/access-change';
import { accountPlanCacheKey } from '../../contracts/cv/plan-cache';
import type { Plan } from './plan.entity';
import type { SubscriptionService } from './subscription.service';

const VENUE_ROLE = `query VenueRole($venueId: ID!, $userId: ID!) { venueRole(venueId: $venueId, userId: $userId) }`;

const ACCOUNT_OWNER = `query AccountOwner($accountId: ID!) { accountOwner(accountId: $accountId) }`;

const RECORD_ACCOUNT_PLAN_CHANGE = `mutation RecordAccountPlanChange($accountId: ID!, $userId: ID!, $plan: String!, $clientAddress: String) {
  recordAccountPlanChange(accountId: $accountId, userId: $userId, plan: $plan, clientAddress: $clientAddress)
}`;

const RECORD_PLAN_CHANGE = `mutation RecordPlanChange($venueId: ID!, $userId: ID!, $plan: String!, $clientAddress: String) {
  recordPlanChange(venueId: $venueId, userId: $userId, plan: $plan, clientAddress: $clientAddress)
}`;

/**
 * A venue's owner moves it to another plan. Who owns the venue is the tickets subgraph's to say;
 * the caches of the venue's plan (Redis, and every tickets process through the access channel)
 * are dropped at once, as `venue set-plan` does.
 */
export class PlanChanges {
  constructor(
    private readonly subscriptions: SubscriptionService,
    private readonly tickets: SubgraphClient,
    private readonly cv: SubgraphClient,
    private readonly redis: Redis,
    private readonly redisPrefix: string,
    private readonly userId: number | null,
    private readonly requestId: string,
    private readonly clientAddress: string | null = null,
  ) {}

  async changeVenuePlan(venueId: string, planKey: string): Promise<Plan> {
    if (this.userId === null) throw new UnauthenticatedError(say('identity.sign_in_required'));
    const id = parseRecordId(venueId);
    if (id === null) throw new NotFoundError(say('venue.not_found'));
    const { venueRole } = await this.tickets.call<{ venueRole: string | null }>(
      'asking a venue role',
      VENUE_ROLE,
      { venueId: String(id), userId: String(this.userId) },
      { requestId: this.requestId },
    );
    if (venueRole === null) throw new NotFoundError(say('venue.not_found'));
    if (venueRole !== 'OWNER') throw new ForbiddenError(say('venue.role_forbidden', { role: venueRole }));
    const plan = await this.subscriptions.planFor('venue', planKey);
    await this.subscriptions.subscribe('venue', id, plan.key, this.userId);
    await this.redis.del(venuePlanCacheKey(this.redisPrefix, id));
    await this.redis.publish(accessChannel(this.redisPrefix), JSON.stringify({ venueId: id }));
    await this.tickets.call(
      'keeping the plan change in the venue’s audit log',
      RECORD_PLAN_CHANGE,
      { venueId: String(id), userId: String(this.userId), plan: plan.key, clientAddress: this.clientAddress },
      { requestId: this.requestId },
    );
    return plan;
  }

  /**
   * The owner of a CV account (its signed-in user) moves it to another plan; the cv subgraph says
   * who owns it. Limits follow on the next request (the cv side keeps an account's plan a minute
   * in Redis, dropped here).
   */
  async changeAccountPlan(accountId: string, planKey: string): Promise<Plan> {
    if (this.userId === null) throw new UnauthenticatedError(say('identity.sign_in_required'));
    const id = parseRecordId(accountId);
    if (id === null) throw new NotFoundError(say('cv.account_not_found'));
    const { accountOwner } = await this.cv.call<{ accountOwner: string | null }>(
      'asking an account’s owner',
      ACCOUNT_OWNER,
      { accountId: String(id) },
      { requestId: this.requestId },
    );
    if (accountOwner !== String(this.userId)) throw new NotFoundError(say('cv.account_not_found'));
    const plan = await this.subscriptions.planFor('account', planKey);
    await this.subscriptions.subscribe('account', id, plan.key, this.userId);
    await this.redis.del(accountPlanCacheKey(this.redisPrefix, id));
    await this.cv.call(
      'keeping the plan change in the account’s audit log',
      RECORD_ACCOUNT_PLAN_CHANGE,
      {
        accountId: String(id),
        userId: String(this.userId),
        plan: plan.key,
        clientAddress: this.clientAddress,
      },
      { requestId: this.requestId },
    );
    return plan;
  }
}
