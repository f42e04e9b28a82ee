import { BigIntType, Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import type { SubscriptionStatus } from '../../contracts/billing/subscription';

/** Who pays: a venue of ticket calling or an account of the CV service. */
export type SubjectType = 'venue' | 'account';

@Entity({ tableName: 'subscriptions' })
export class Subscription {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  subjectType!: SubjectType;

  @Property({ type: new BigIntType('number') })
  subjectId!: number;

  @Property({ type: 'text' })
  planKey!: string;

  @Property({ type: 'text' })
  status: SubscriptionStatus & Opt = 'active';

  @Property({ type: 'timestamptz', nullable: true })
  endsAt: Date | null = null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
