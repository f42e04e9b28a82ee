import { BigIntType, Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core';

/** A ticket event written in the same transaction as the change it reports; relayed later. */
@Entity({ tableName: 'outbox' })
export class OutboxEvent {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  /** Stable across every delivery attempt; receivers dedupe on it. */
  @Property({ type: 'uuid' })
  eventId!: string;

  @Property({ type: 'text' })
  event!: string;

  @Property({ type: new BigIntType('number') })
  venueId!: number;

  @Property({ type: new BigIntType('number'), nullable: true })
  ticketId: number | null = null;

  @Property({ type: 'json' })
  payload!: Record<string, unknown>;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  /** The W3C trace context of the change that caused it; null when that change was not traced. */
  @Property({ type: 'text', nullable: true })
  traceparent: string | null = null;

  /** When its webhook, SMS and push rows were written. */
  @Property({ type: 'timestamptz', nullable: true })
  relayedAt: Date | null = null;

  /** When it went out to live subscribers (Redis pub/sub). */
  @Property({ type: 'timestamptz', nullable: true })
  publishedAt: Date | null = null;
}
