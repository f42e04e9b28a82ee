import { BigIntType, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { TicketSource, type TicketStatus } from '../../../contracts/tickets/ticket.limits';

@Entity({ tableName: 'tickets' })
export class Ticket {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: new BigIntType('number') })
  branchId!: number;

  @Property({ type: 'text' })
  number!: string;

  @Property({ type: 'text', nullable: true })
  externalId: string | null = null;

  @Property({ type: 'text' })
  token!: string;

  @Property({ type: 'text' })
  status: TicketStatus = 'waiting';

  @Property({ type: 'text', nullable: true })
  customerName: string | null = null;

  /** E.164; never part of any response, used for the one SMS on ready. */
  @Property({ type: 'text', nullable: true, hidden: true })
  customerPhone: string | null = null;

  @Property({ type: 'text', nullable: true })
  note: string | null = null;

  @Property({ type: 'smallint' })
  source: TicketSource = TicketSource.API;

  @Property({ type: 'integer' })
  ringCount: number = 0;

  /** When the customer was last alerted (ready or ring); the ring interval counts from here. */
  @Property({ type: 'timestamptz', nullable: true })
  lastAlertAt: Date | null = null;

  @Property({ type: 'boolean' })
  phoneLinked: boolean = false;

  @Property({ type: 'boolean' })
  alertsEnabled: boolean = false;

  @Property({ type: 'boolean' })
  smsOptIn: boolean = false;

  @Property({ type: 'boolean' })
  smsSent: boolean = false;

  @Property({ type: 'timestamptz', nullable: true })
  linkedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  readyAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  collectedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  cancelledAt: Date | null = null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  updatedAt: Date = new Date();
}
