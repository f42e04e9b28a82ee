import { Directive, Field, ID, ObjectType } from 'type-graphql';

/** Billing's part of a venue: the plan it is on. The tickets subgraph owns everything else. */
@Directive('@key(fields: "id")')
@ObjectType('Venue')
export class BillingVenue {
  @Field(() => ID, { description: 'The venue’s id.' })
  id!: string;
}
