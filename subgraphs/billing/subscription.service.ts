import type { EntityManager } from '../../common/database';
import { ValidationError } from '../../common/errors';
import { Plan, Product } from './plan.entity';
import { Subscription, type SubjectType } from './subscription.entity';

const PRODUCT_OF: Record<SubjectType, Product> = { venue: Product.TICKETS, account: Product.CV };

export class SubscriptionService {
  constructor(private readonly em: EntityManager) {}

  /** The plan with this key, which must be one of the subject's product (422 on `plan` otherwise). */
  async planFor(subjectType: SubjectType, planKey: string): Promise<Plan> {
    const plan = await this.em.findOne(Plan, { key: planKey });
    if (plan === null || plan.product !== PRODUCT_OF[subjectType]) {
      const choices = (
        await this.em.find(Plan, { product: PRODUCT_OF[subjectType] }, { orderBy: { sortOrder: 'asc' } })
      )
        .map((p) => p.key)
        .join(', ');
      throw new ValidationError({ plan: [`The selected plan is invalid (choose ${choices}).`] });
    }
    return plan;
  }

  /** Puts the subject on the plan (creating or changing its subscription); the plan must be of its product. */
  async subscribe(subjectType: SubjectType, subjectId: number, planKey: string): Promise<Subscription> {
    await this.planFor(subjectType, planKey);
    let subscription = await this.em.findOne(Subscription, { subjectType, subjectId });
    if (subscription === null) {
      subscription = this.em.create(Subscription, {
        subjectType,
        subjectId,
        planKey,
        status: 'active',
        endsAt: null,
      });
    } else {
      subscription.planKey = planKey;
      subscription.status = 'active';
      subscription.endsAt = null;
    }
    await this.em.flush();
    return subscription;
  }

  /** The plan an active subscription gives the subject, or null (no subscription, or not active). */
  async activePlanOf(subjectType: SubjectType, subjectId: number): Promise<Plan | null> {
    const subscription = await this.em.findOne(Subscription, { subjectType, subjectId, status: 'active' });
    return subscription === null ? null : this.em.findOne(Plan, { key: subscription.planKey });
  }

  async subscriptionOf(subjectType: SubjectType, subjectId: number): Promise<Subscription | null> {
    return this.em.findOne(Subscription, { subjectType, subjectId });
  }

  /**
   * Counts one export against the account's monthly download_limit, in one statement so parallel
   * exports at the limit let exactly the remaining ones through. No active plan allows none.
   */
  async meterDownload(subjectType: SubjectType, subjectId: number): Promise<DownloadMeter> {
    const plan = await this.activePlanOf(subjectType, subjectId);
    const limit = plan === null ? 0 : plan.downloadLimit;
    if (limit !== null && limit <= 0) return { allowed: false, downloads: 0, limit };
    const [row] = await this.em.execute<{ downloads: number }[]>(
      `insert into billing.usage_months (subject_type, subject_id, month, downloads)
       values (?, ?, date_trunc('month', now() at time zone 'utc')::date, 1)
       on conflict (subject_type, subject_id, month) do update
         set downloads = usage_months.downloads + 1
         where ?::integer is null or usage_months.downloads < ?::integer
       returning downloads`,
      [subjectType, subjectId, limit, limit],
    );
    if (row !== undefined) return { allowed: true, downloads: row.downloads, limit };
    return { allowed: false, downloads: await this.downloadsThisMonth(subjectType, subjectId), limit };
  }

  /** Gives back an export that was counted but never delivered (the render failed). */
  async refundDownload(subjectType: SubjectType, subjectId: number): Promise<void> {
    await this.em.execute(
      `update billing.usage_months set downloads = downloads - 1
        where subject_type = ? and subject_id = ? and downloads > 0
          and month = date_trunc('month', now() at time zone 'utc')::date`,
      [subjectType, subjectId],
    );
  }

  /** Downloads metered in the current calendar month (UTC); a new month starts at zero. */
  async downloadsThisMonth(subjectType: SubjectType, subjectId: number): Promise<number> {
    const [row] = await this.em.execute<{ downloads: number }[]>(
      `select downloads from billing.usage_months
        where subject_type = ? and subject_id = ? and month = date_trunc('month', now() at time zone 'utc')::date`,
      [subjectType, subjectId],
    );
    return row?.downloads ?? 0;
  }
}

export interface DownloadMeter {
  allowed: boolean;
  /** This month's count after the call. */
  downloads: number;
  /** The plan's download_limit; null is unlimited. */
  limit: number | null;
}
