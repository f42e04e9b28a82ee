import { Field, ID, ObjectType } from 'type-graphql';
import type { Template } from './template.entity';

@ObjectType('Template', { description: 'A CV design (the Template resource of cv-api.md).' })
export class TemplateType {
  @Field(() => ID, { description: 'The template’s id.' })
  id!: string;

  @Field(() => String, {
    description:
      'Lower-case letters, digits and single dashes; unique among the platform’s templates and within a company.',
  })
  slug!: string;

  @Field(() => String, { description: 'The template’s display name.' })
  name!: string;

  @Field(() => String, { description: 'A short text about the design; empty when none.' })
  description!: string;

  @Field(() => String, { description: 'professional, modern, simple, creative or academic.' })
  category!: string;

  @Field(() => String, { description: 'single-column, two-column or sidebar.' })
  layout!: string;

  @Field(() => Boolean, { description: 'Whether it needs a plan with premium templates.' })
  isPremium!: boolean;

  @Field(() => Boolean, { description: 'Owned by the account’s company rather than the platform.' })
  isCompanyTemplate!: boolean;

  @Field(() => Boolean, { description: 'False for a premium template on a plan without premium templates.' })
  available!: boolean;

  @Field(() => String, { description: 'Live preview with sample data.' })
  previewUrl!: string;
}

export function toTemplateType(
  template: Template,
  premiumAllowed: boolean,
  publicBaseUrl: string,
): TemplateType {
  return {
    id: String(template.id),
    slug: template.slug,
    name: template.name,
    description: template.description,
    category: template.category,
    layout: template.layout,
    isPremium: template.isPremium,
    isCompanyTemplate: template.companyId !== null,
    available: !template.isPremium || premiumAllowed,
    previewUrl: `${publicBaseUrl}/templates/${template.id}/preview`,
  };
}
