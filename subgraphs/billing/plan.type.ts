import { Directive, Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { type Plan, Product } from './plan.entity';

registerEnumType(Product, {
  name: 'Product',
  description: 'The product a plan is sold for.',
  valuesConfig: {
    CV: { description: 'CV building: the free, pro and business plans.' },
    TICKETS: { description: 'Ticket calling: the starter, growth and enterprise plans.' },
  },
});

@ObjectType('CvPlanLimits', { description: 'What a CV plan allows. A null limit means unlimited.' })
export class CvPlanLimits {
  @Field(() => Int, { nullable: true, description: 'CVs an account may hold.' })
  cvLimit!: number | null;

  @Field(() => Int, { nullable: true, description: 'PDF and HTML exports a calendar month.' })
  downloadLimit!: number | null;

  @Field(() => Boolean, { description: 'Whether premium templates may be used.' })
  premiumTemplates!: boolean;

  @Field(() => Boolean, { description: 'Whether exports carry a visible watermark.' })
  watermark!: boolean;
}

@ObjectType('TicketPlanFeatures', { description: 'What a ticket-calling plan includes.' })
export class TicketPlanFeatures {
  @Field(() => Boolean, { description: 'Whether the venue may use the REST and GraphQL ticket API.' })
  apiAccess!: boolean;

  @Field(() => Boolean, { description: 'Whether a text message may be sent when a ticket is ready.' })
  sms!: boolean;

  @Field(() => Boolean, {
    description: 'Whether the ready alert may go to the customer’s WhatsApp chat once they opt in.',
  })
  whatsapp!: boolean;
}

@Directive('@key(fields: "key")')
@ObjectType('Plan', { description: 'A plan of the catalogue, sold per month in Iraqi dinars.' })
export class PlanType {
  @Field(() => String, { description: 'Stable identifier, e.g. "free" or "growth".' })
  key!: string;

  @Field(() => String, { description: 'Display name, e.g. "Pro".' })
  name!: string;

  @Field(() => Product, { description: 'The product the plan is for.' })
  product!: Product;

  @Field(() => Int, { description: 'Monthly price in IQD.' })
  monthlyPriceIqd!: number;

  @Field(() => CvPlanLimits, { nullable: true, description: 'Set on CV plans only.' })
  cv!: CvPlanLimits | null;

  @Field(() => TicketPlanFeatures, { nullable: true, description: 'Set on ticket-calling plans only.' })
  tickets!: TicketPlanFeatures | null;
}

export function toPlanType(plan: Plan): PlanType {
  return {
    key: plan.key,
    name: plan.name,
    product: plan.product,
    monthlyPriceIqd: plan.monthlyPriceIqd,
    cv:
      plan.product === Product.CV
        ? {
            cvLimit: plan.cvLimit,
            downloadLimit: plan.downloadLimit,
            premiumTemplates: plan.premiumTemplates,
            watermark: plan.watermark,
          }
        : null,
    tickets:
      plan.product === Product.TICKETS
        ? { apiAccess: plan.apiAccess, sms: plan.sms, whatsapp: plan.whatsapp }
        : null,
  };
}
