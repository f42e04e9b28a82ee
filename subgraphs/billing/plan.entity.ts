import { Entity, Enum, PrimaryKey, Property } from '@mikro-orm/core';

export enum Product {
  CV = 'cv',
  TICKETS = 'tickets',
}

/** A row of the plan catalogue; which columns apply depends on the product (see the table's checks). */
@Entity({ tableName: 'plans' })
export class Plan {
  @PrimaryKey({ type: 'text' })
  key!: string;

  @Property({ type: 'text' })
  name!: string;

  @Enum({ items: () => Product, type: 'text' })
  product!: Product;

  @Property({ type: 'integer' })
  monthlyPriceIqd!: number;

  /** CV plans: null means unlimited. */
  @Property({ type: 'integer', nullable: true })
  cvLimit: number | null = null;

  /** CV plans: exports a month; null means unlimited. */
  @Property({ type: 'integer', nullable: true })
  downloadLimit: number | null = null;

  @Property({ type: 'boolean' })
  premiumTemplates = false;

  @Property({ type: 'boolean' })
  watermark = false;

  /** Ticket plans: whether the REST/GraphQL API may be used with the venue's keys. */
  @Property({ type: 'boolean' })
  apiAccess = false;

  /** Ticket plans: whether the one SMS on ready may be sent. */
  @Property({ type: 'boolean' })
  sms = false;

  /** Ticket plans: whether the ready alert may go to the customer's WhatsApp chat. */
  @Property({ type: 'boolean' })
  whatsapp = false;

  @Property({ type: 'integer' })
  sortOrder = 0;

  @Property({ type: 'timestamptz', onCreate: () => new Date() })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
