import { BigIntType, Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { WAIT_ALERT_MINUTES } from './venue.rules';

export type VenueLanguage = 'ar' | 'en';

/** A business using ticket calling; its plan lives in billing and is read through the graph. */
@Entity({ tableName: 'venues' })
export class Venue {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  language: VenueLanguage & Opt = 'ar';

  @Property({ type: 'text' })
  timezone: string & Opt = 'Asia/Baghdad';

  @Property({ type: 'boolean' })
  smsEnabled: boolean & Opt = false;

  /** The venue's WhatsApp switch; WhatsApp is on only while the platform has it configured too. */
  @Property({ type: 'boolean' })
  whatsappEnabled: boolean & Opt = false;

  @Property({ type: 'integer' })
  waitAlertMinutes: number & Opt = WAIT_ALERT_MINUTES.default;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
