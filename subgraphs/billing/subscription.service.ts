import { ValidationError } from '../../common/errors';
import { InflightJoin } from '../../common/inflight-join';
import { Product, type Plan } from './plan.entity';
import type { PlanRepository } from './plan.repository';
import type { Subscription, SubjectType } from './subscription.entity';
import type { Standing, SubscriptionRepository } from './subscription.repository';
import type { UsageRepository } from './usage.repository';
import { say } from '../../common/messages';

const PRODUCT_OF: Record<SubjectType, Product> = { venue: Product.TICKETS, account: Product.CV };

/** Who is on which plan, and the usage metered against it. */
export class SubscriptionService {
  // A unit of work hears every change it makes itself: its joins need no access announcements.
  private readonly standings = new InflightJoin<Standing>(() => true);

  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly plans: PlanRepository,
    private readonly usage: UsageRepository,
  ) {}

  /** The plan with this key, which must be one of the subject's product (422 on `plan` otherwise). */
  async planFor(subjectType: SubjectType, planKey: string): Promise<Plan> {
    const plan = await this.plans.findByKey(planKey);
    if (plan === null || plan.product !== PRODUCT_OF[subjectType]) {
      const choices = (await this.plans.list(PRODUCT_OF[subjectType])).map((p) => p.key).join(', ');
      throw new ValidationError({ plan: [say('field.selected_invalid_choose', { field: 'plan', choices })] });
    }
    return plan;
  }

  /** Puts the subject on the plan (creating or changing its subscription); the plan must be of its product. */
  /**
   * Puts the subject on the plan and keeps the move in its history.
   * @param changedByUserId the person who asked; null for the operator or the platform itself
   */
  async subscribe(
    subjectType: SubjectType,
    subjectId: number,
    planKey: string,
    changedByUserId: number | null = null,
  ): Promise<Subscription> {
    await this.planFor(subjectType, planKey);
    const subscription = await this.subscriptions.findBySubject(subjectType, subjectId);
    await this.subscriptions.recordChange({
      subjectType,
      subjectId,
      fromPlanKey: subscription?.planKey ?? null,
      toPlanKey: planKey,
      changedByUserId,
    });
    if (subscription === null) {
      return this.subscriptions.create({ subjectType, subjectId, planKey, status: 'active', endsAt: null });
    }
    subscription.planKey = planKey;
    subscription.status = 'active';
    subscription.endsAt = null;
    await this.subscriptions.save(subscription);
    return subscription;
  }

  history(subjectType: SubjectType, subjectId: number) {
    return this.subscriptions.history(subjectType, subjectId);
  }

  /** The plan an active subscription gives the subject, or null (no subscription, or not active). */
  async activePlanOf(subjectType: SubjectType, subjectId: number): Promise<Plan | null> {
    const { subscription } = await this.standingOf(subjectType, subjectId);
    return subscription?.status === 'active' ? this.plans.findByKey(subscription.planKey) : null;
  }

  async subscriptionOf(subjectType: SubjectType, subjectId: number): Promise<Subscription | null> {
    return (await this.standingOf(subjectType, subjectId)).subscription;
  }

  /**
   * One read of the subject's subscription and usage for every field asking while it is under
   * way (an account's `plan` and `usage` resolve side by side), and a new read after it settles,
   * so nothing this unit of work writes later is answered from an older read.
   */
  private standingOf(subjectType: SubjectType, subjectId: number): Promise<Standing> {
    return this.standings.join(
      `${subjectType}:${subjectId}`,
      () => this.subscriptions.standingOf(subjectType, subjectId),
      () => undefined,
    ).value;
  }

  /**
   * Counts one export against the account's monthly download_limit, in one statement so parallel
   * exports at the limit let exactly the remaining ones through (UsageRepository#addDownload). No
   * active plan allows none.
   */
  async meterDownload(subjectType: SubjectType, subjectId: number): Promise<DownloadMeter> {
    const plan = await this.activePlanOf(subjectType, subjectId);
    const limit = plan === null ? 0 : plan.downloadLimit;
    if (limit !== null && limit <= 0) return { allowed: false, downloads: 0, limit };
    const downloads = await this.usage.addDownload(subjectType, subjectId, limit);
    if (downloads !== null) return { allowed: true, downloads, limit };
    return { allowed: false, downloads: await this.downloadsThisMonth(subjectType, subjectId), limit };
  }

  /** Gives back an export that was counted but never delivered (the render failed). */
  async refundDownload(subjectType: SubjectType, subjectId: number): Promise<void> {
    await this.usage.removeDownload(subjectType, subjectId);
  }

  /** Downloads metered in the current calendar month (UTC); a new month starts at zero. */
  async downloadsThisMonth(subjectType: SubjectType, subjectId: number): Promise<number> {
    return (await this.standingOf(subjectType, subjectId)).downloadsThisMonth;
  }
}

/** What metering one export answered. */
export interface DownloadMeter {
  allowed: boolean;
  /** This month's count after the call. */
  downloads: number;
  /** The plan's download_limit; null is unlimited. */
  limit: number | null;
}
