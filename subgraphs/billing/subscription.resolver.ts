import { Arg, Directive, Field, ID, InputType, Mutation, Resolver } from 'type-graphql';
import { parseRecordId } from '../../common/input.rules';
import { NotFoundError, ValidationError } from '../../common/errors';
import { say } from '../../common/messages';
import type { SubjectType } from './subscription.entity';
import { SubscriptionService } from './subscription.service';
import type { PlanChanges } from './plan-change';
import { PlanType, toPlanType } from './plan.type';

const SUBJECT_TYPES: readonly SubjectType[] = ['venue', 'account'];

@InputType('ChangePlanInput', { description: 'Whose plan changes, and to which.' })
export class ChangePlanInput {
  @Field(() => ID, { nullable: true, description: 'A venue the signed-in user owns.' })
  venueId?: string | null;

  @Field(() => ID, {
    nullable: true,
    description: 'The signed-in user’s own CV account.',
  })
  accountId?: string | null;

  @Field(() => String, {
    description:
      'A plan key of the product: starter, growth or enterprise for a venue; free, pro or business for an account.',
  })
  plan!: string;
}

@Resolver()
export class SubscriptionResolver {
  constructor(
    private readonly subscriptions: SubscriptionService,
    private readonly changes: PlanChanges,
  ) {}

  @Mutation(() => PlanType, {
    description:
      'Moves a venue (its owner only) or a CV account (its user only) to another plan of its product; the limits follow at once. Give exactly one of venueId and accountId. Payment is not collected here.',
  })
  async changePlan(
    @Arg('input', () => ChangePlanInput, {
      description: 'The venue or the CV account, and the plan key to move it to.',
    })
    input: ChangePlanInput,
  ): Promise<PlanType> {
    const given = [input.venueId, input.accountId].filter((id) => id !== undefined && id !== null);
    if (given.length !== 1) {
      throw new ValidationError({ venueId: [say('field.required', { field: 'venue id' })] });
    }
    if (input.venueId === undefined || input.venueId === null) {
      return toPlanType(await this.changes.changeAccountPlan(input.accountId!, input.plan));
    }
    return toPlanType(await this.changes.changeVenuePlan(input.venueId, input.plan));
  }

  /**
   * Puts a new venue or account on a plan: asked by the subgraph that created it, once it has
   * decided who may. Not part of the public graph.
   */
  @Directive('@inaccessible')
  @Mutation(() => Boolean, { description: 'Subscribes a new venue or account; the platform’s own call.' })
  async startSubscription(
    @Arg('subjectType', () => String, { description: 'venue or account.' }) subjectType: string,
    @Arg('subjectId', () => ID, { description: 'The venue’s or account’s id.' }) subjectId: string,
    @Arg('plan', () => String, { description: 'A plan key of the subject’s product.' }) plan: string,
  ): Promise<boolean> {
    if (!(SUBJECT_TYPES as readonly string[]).includes(subjectType)) {
      throw new ValidationError({ subjectType: [say('field.selected_invalid', { field: 'subject type' })] });
    }
    const id = parseRecordId(subjectId);
    if (id === null) throw new NotFoundError('Subject not found.');
    await this.subscriptions.subscribe(subjectType as SubjectType, id, plan);
    return true;
  }
}
