import { Field, ID, InputType, ObjectType } from 'type-graphql';
import type { CvRow } from './cv.service';

@ObjectType('CvLinks', { description: 'Where a CV is read and exported; share needs no key.' })
export class CvLinksType {
  @Field(() => String)
  self!: string;

  @Field(() => String)
  pdf!: string;

  @Field(() => String)
  html!: string;

  @Field(() => String)
  share!: string;
}

@ObjectType('Cv', { description: 'A CV of the account, addressed by its UUID.' })
export class CvType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  title!: string;

  @Field(() => String, { description: 'ar or en.' })
  locale!: string;

  @Field(() => ID)
  templateId!: string;

  @Field(() => CvLinksType)
  links!: CvLinksType;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@InputType('CreateCvInput')
export class CreateCvInput {
  @Field(() => String, { description: 'Internal name, at most 255 characters.' })
  title!: string;

  @Field(() => String, { description: 'ar or en.' })
  locale!: string;

  @Field(() => ID)
  templateId!: string;
}

export function toCvType(row: CvRow, publicBaseUrl: string): CvType {
  const self = `${publicBaseUrl}/api/v1/cvs/${row.id}`;
  return {
    id: row.id,
    title: row.title,
    locale: row.locale,
    templateId: String(row.template_id),
    links: {
      self,
      pdf: `${self}/pdf`,
      html: `${self}/html`,
      share: `${publicBaseUrl}/cv/${row.share_token}`,
    },
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
