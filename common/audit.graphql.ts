import {
  Arg,
  Directive,
  Field,
  FieldResolver,
  ID,
  Int,
  ObjectType,
  Resolver,
  Root,
  type ClassType,
} from 'type-graphql';
import type { AuditEvent } from './audit-log';
import { AssumedSize, SlicedBy } from './cost.graphql';
import { ValidationError } from './errors';
import { parseRecordId } from './input.rules';
import { say } from './messages';

/** How many events a page holds unless asked for fewer, and at most. */
export const AUDIT_PAGE_DEFAULT = 20;
export const AUDIT_PAGE_MAX = 100;

export interface AuditActorShape<U> {
  type: string;
  user: U | null;
  apiKeyId: string | null;
}

export interface AuditEventShape<U> {
  id: string;
  action: string;
  target: string;
  actor: AuditActorShape<U>;
  details: { name: string; value: string | null }[];
  clientAddress: string | null;
  createdAt: Date;
}

export interface AuditLogPageShape<U> {
  items: AuditEventShape<U>[];
  endCursor: string | null;
}

/**
 * The audit log's GraphQL types, one shape for every log (a venue's, a CV account's, a user's).
 * Each subgraph that keeps a log declares them over its own `User` type, so they are @shareable;
 * they come from one place so the declarations never drift apart, which composition would refuse.
 */
export function auditGraphTypes<U extends { id: string }>(User: ClassType<U>) {
  @Directive('@shareable')
  @ObjectType('AuditActor', { description: 'Who made a change.' })
  class AuditActorType implements AuditActorShape<U> {
    @Field(() => String, { description: 'user, key or operator (the platform’s CLI).' })
    type!: string;

    @Field(() => User, { nullable: true, description: 'The person, when a person made it.' })
    user!: U | null;

    @Field(() => ID, { nullable: true, description: 'The API key, when a key made it.' })
    apiKeyId!: string | null;
  }

  @Directive('@shareable')
  @ObjectType('AuditDetail', { description: 'One value that describes a change; never a secret.' })
  class AuditDetailType {
    @Field(() => String, { description: 'What the value is, such as name, role or plan.' })
    name!: string;

    @Field(() => String, { nullable: true, description: 'The value as text; null for none.' })
    value!: string | null;
  }

  @Directive('@shareable')
  @ObjectType('AuditEvent', {
    description: 'One management change of a venue, a CV account or a user’s sign-in.',
  })
  class AuditEventType implements AuditEventShape<U> {
    @Field(() => ID, { description: 'The event’s id.' })
    id!: string;

    @Field(() => String, {
      description:
        'What happened, as subject.verb such as api_key.issued or plan.changed; docs/FRONTEND.md lists each log’s actions.',
    })
    action!: string;

    @Field(() => String, { description: 'What it happened to, such as api_key:12, user:7 or email:a@b.iq.' })
    target!: string;

    @Field(() => AuditActorType, { description: 'Who did it.' })
    actor!: AuditActorType;

    // An event names a few details (a key’s name, prefix, branch and scopes); ten is room to spare.
    @AssumedSize(10)
    @Field(() => [AuditDetailType], { description: 'The values that describe it.' })
    details!: AuditDetailType[];

    @Field(() => String, {
      nullable: true,
      description: 'The client address it came from; null for the operator.',
    })
    clientAddress!: string | null;

    @Field(() => Date, { description: 'When it happened.' })
    createdAt!: Date;
  }

  @Directive('@shareable')
  @ObjectType('AuditLogPage', { description: 'A page of an audit log, newest first.' })
  class AuditLogPageType implements AuditLogPageShape<U> {
    @Field(() => [AuditEventType], { description: 'The events of this page.' })
    items!: AuditEventType[];

    @Field(() => String, {
      nullable: true,
      description: 'Pass as `after` for the next page; null on the last page.',
    })
    endCursor!: string | null;
  }

  return { AuditLogPageType };
}

/** The `first` argument of every `auditLog` field. */
export const AuditFirstArg = () =>
  Arg('first', () => Int, { defaultValue: AUDIT_PAGE_DEFAULT, description: `At most ${AUDIT_PAGE_MAX}.` });

/** The `after` argument of every `auditLog` field. */
export const AuditAfterArg = () =>
  Arg('after', () => String, { nullable: true, description: 'The endCursor of the page before.' });

/** Where an `auditLog` field reads its owner's events: the owner's service, which checks who asks. */
export interface AuditLogReader {
  /** `size` events of the owner's log older than the event `before` (null: the newest), newest first. */
  auditLog(ownerId: number, size: number, before: number | null): Promise<AuditEvent[]>;
}

/** What tells one `auditLog` field from another. */
export interface AuditLogField<Owner extends { id: string }, U> {
  /** The type the field is on (a venue, a user). */
  owner: ClassType<Owner>;
  /** The subgraph's `AuditLogPage` type, from `auditGraphTypes`. */
  page: ClassType<AuditLogPageShape<U>>;
  description: string;
  /** The User an acting person's id stands for, or null where the log may not show them. */
  user(owner: Owner, id: number): U | null;
}

/**
 * The resolver of an `auditLog` field, the same for every log: paged by `first` and `after`,
 * counted by `first` in the gateway's estimate. Each request's instance reads through the
 * owner's service, which decides whether the caller may. type-graphql lists the field where the
 * call is made among its type's fields, so a subgraph makes it beside its other resolvers of that
 * type (schema/ shows any move).
 */
export function auditLogResolver<Owner extends { id: string }, U>(field: AuditLogField<Owner, U>) {
  @Resolver(() => field.owner)
  class AuditLogResolver {
    constructor(private readonly reader: AuditLogReader) {}

    @SlicedBy('first', ['items'])
    @FieldResolver(() => field.page, { description: field.description })
    auditLog(
      @Root() owner: Owner,
      @AuditFirstArg() first: number,
      @AuditAfterArg() after: string | null | undefined,
    ): Promise<AuditLogPageShape<U>> {
      return auditPage(
        first,
        after,
        (size, before) => this.reader.auditLog(Number(owner.id), size, before),
        (id) => field.user(owner, id),
      );
    }
  }
  return AuditLogResolver;
}

/**
 * One page of a log for an `auditLog` field: `load` reads `size` events older than `before`;
 * `user` turns an acting person's id into the User, or null where the subgraph may not show them.
 */
export async function auditPage<U>(
  first: number,
  after: string | null | undefined,
  load: (size: number, before: number | null) => Promise<AuditEvent[]>,
  user: (id: number) => U | null,
): Promise<AuditLogPageShape<U>> {
  const size = Math.min(Math.max(first, 0), AUDIT_PAGE_MAX);
  return auditPageOf(await load(size, auditCursor(after)), size, user);
}

/** The event id an `after` cursor stands for; null for the first page. */
function auditCursor(after: string | null | undefined): number | null {
  if (after === null || after === undefined) return null;
  const before = parseRecordId(Buffer.from(after, 'base64url').toString('utf8'));
  if (before === null) throw new ValidationError({ after: [say('field.invalid', { field: 'after' })] });
  return before;
}

function auditPageOf<U>(
  events: readonly AuditEvent[],
  size: number,
  user: (id: number) => U | null,
): AuditLogPageShape<U> {
  const last = events.at(-1);
  return {
    items: events.map((event) => ({
      id: String(event.id),
      action: event.action,
      target: event.target,
      actor: {
        type: event.actor.type,
        user: event.actor.type === 'user' ? user(event.actor.id) : null,
        apiKeyId: event.actor.type === 'key' ? String(event.actor.id) : null,
      },
      details: Object.entries(event.details).map(([name, value]) => ({
        name,
        value: value === null ? null : String(value),
      })),
      clientAddress: event.clientAddress,
      createdAt: event.createdAt,
    })),
    endCursor:
      events.length === size && last !== undefined
        ? Buffer.from(String(last.id)).toString('base64url')
        : null,
  };
}
