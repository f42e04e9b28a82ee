import { BigIntType, Entity, JsonType, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import type { CvSettings } from '../../../contracts/cv/cv.payload';

/** A CV design: the platform's (no company) or a company's own. */
@Entity({ tableName: 'templates' })
export class Template {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: new BigIntType('number'), nullable: true })
  companyId: number | null = null;

  @Property({ type: 'text' })
  slug!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  description: string & Opt = '';

  @Property({ type: 'text' })
  category!: string;

  @Property({ type: 'text' })
  layout!: string;

  @Property({ type: 'boolean' })
  isPremium: boolean & Opt = false;

  @Property({ type: JsonType })
  defaultSettings: CvSettings & Opt = {};

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
