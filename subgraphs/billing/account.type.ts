import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';

/**
 * Billing's part of a CV account: its plan, subscription and usage. The cv subgraph owns the
 * account and counts its CVs (`cvCount`, which `usage` requires); billing meters the downloads.
 */
@Directive('@key(fields: "id")')
@ObjectType('Account')
export class BillingAccount {
  @Field(() => ID, { description: 'The account’s id.' })
  id!: string;

  @Directive('@external')
  @Field(() => Int)
  cvCount!: number;
}

@ObjectType('AccountSubscription', { description: 'How an account pays for its plan.' })
export class AccountSubscriptionType {
  @Field(() => String, { description: 'active, past_due or cancelled.' })
  status!: string;

  @Field(() => Date, { nullable: true, description: 'When the paid period ends; null while it renews.' })
  endsAt!: Date | null;
}

@ObjectType('AccountUsage', { description: 'What an account has used of its plan.' })
export class AccountUsageType {
  @Field(() => Int, { description: 'CVs the account holds now.' })
  cvs!: number;

  @Field(() => Int, { description: 'PDF and HTML exports this calendar month (UTC).' })
  downloadsThisMonth!: number;
}
