import { BigIntType, Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core';

/** A counter of a venue; API keys and tickets belong to one branch. */
@Entity({ tableName: 'branches' })
export class Branch {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: new BigIntType('number') })
  venueId!: number;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'date', nullable: true })
  numberDay: string | null = null;

  @Property({ type: 'integer' })
  numberCounter: number & Opt = 0;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
