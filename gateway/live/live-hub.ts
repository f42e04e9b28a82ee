import { execute, type FormattedExecutionResult, type GraphQLSchema } from 'graphql';
import type { TextLanguage } from '../../common/language';
import type { Logger } from '../../common/logger';
import { REQUEST_ID_HEADER } from '../../common/request-context';
import { BRANCH_HEADER } from '../../contracts/identity/session';
import { TICKET_TOKEN_HEADER, TOKEN_HIDDEN_FIELDS, type LiveEvent } from '../../contracts/tickets/live-event';
import type { GatewayContext, RunQuery } from '../context';
import { LIVE_TICKET_ID, type LivePlan } from './live-plan';
import type { LiveSocket } from './live-wire';

/**
 * Who a subscription reads as: a ticket's token for that ticket; a branch key, board device or
 * signed-in member (with the branch they named) for a branch; a display's token for its branch's
 * numbers.
 */
export type LiveReader =
  | { kind: 'token'; token: string; language: TextLanguage }
  | {
      kind: 'branch';
      branchId: number;
      authorization: string;
      /** The X-Branch-Id a signed-in member named; none for a key. */
      branchHeader: string | undefined;
      language: TextLanguage;
    }
  | { kind: 'display'; branchId: number; token: string; language: TextLanguage };

export interface LiveSubscription {
  reader: LiveReader;
  plan: LivePlan;
  rootField: string;
  variables: Record<string, unknown>;
  operationName: string | undefined;
}

/**
 * Bytes a subscriber's socket may have queued unsent. A client that stops reading would otherwise
 * hold every later event in the gateway's memory; past this its subscription completes, and the
 * client resubscribes and refetches, as it must after any gap anyway.
 */
const MAX_BUFFERED_BYTES = 1024 * 1024;

const HIDDEN_FROM_TOKEN: ReadonlySet<string> = new Set(TOKEN_HIDDEN_FIELDS);

/**
 * One subscriber. Each result is serialised and framed as graphql-ws's `next` message once per
 * group and operation id, and that one encoded frame is written to every member's socket with that
 * id, so an event costs a socket write per subscriber rather than a promise chain, a message
 * validation, a JSON.stringify and a UTF-8 encoding each. graphql-ws still owns the subscription's
 * life: it iterates this (nothing is ever yielded) and calls `return()` on complete or close, which
 * ends the membership.
 */
export class LiveSink implements AsyncIterableIterator<FormattedExecutionResult> {
  private done = false;
  private finish?: (result: IteratorResult<FormattedExecutionResult>) => void;

  constructor(
    private readonly socket: LiveSocket,
    /** The client's id of the operation, which its `next` frames carry. */
    readonly operationId: string,
    private readonly onEnd: (sink: LiveSink) => void,
  ) {}

  write(frame: Buffer): void {
    if (this.done) return;
    if (this.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      void this.return();
      return;
    }
    this.socket.write(frame);
  }

  next(): Promise<IteratorResult<FormattedExecutionResult>> {
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.finish = resolve));
  }

  return(): Promise<IteratorResult<FormattedExecutionResult>> {
    if (!this.done) {
      this.done = true;
      this.onEnd(this);
      this.finish?.({ value: undefined, done: true });
      this.finish = undefined;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<FormattedExecutionResult> {
    return this;
  }
}

/**
 * Subscribers with the same credentials, language and operation share one result per event, so an
 * event costs one execution per distinct subscription, not one per socket.
 */
class LiveGroup {
  readonly sinks = new Set<LiveSink>();
  private tail: Promise<void> = Promise.resolve();

  constructor(
    readonly subscription: LiveSubscription,
    private readonly schema: GraphQLSchema,
    private readonly runQuery: RunQuery,
    private readonly logger: Logger,
  ) {}

  /** Results reach subscribers in event order even when one needs a gateway round trip. */
  deliver(event: LiveEvent): void {
    this.tail = this.tail
      .then(async () => {
        const json = JSON.stringify(await this.resultOf(event));
        // Clients that number their operations alike (the platform's pages all start at 1) share a frame.
        const frames = new Map<string, Buffer>();
        for (const sink of this.sinks) {
          let frame = frames.get(sink.operationId);
          if (frame === undefined) {
            frame = nextFrame(sink.operationId, json);
            frames.set(sink.operationId, frame);
          }
          sink.write(frame);
        }
      })
      .catch((error: unknown) =>
        this.logger.error({ err: error, eventId: event.id }, 'live event could not be resolved'),
      );
  }

  private async resultOf(event: LiveEvent): Promise<FormattedExecutionResult> {
    const { reader, plan, rootField, variables, operationName } = this.subscription;
    const ticket = event.ticket[reader.language];
    if (this.answerableFrom(ticket)) {
      const result = await execute({
        schema: this.schema,
        document: plan.document,
        rootValue: { [rootField]: ticket },
        variableValues: variables,
        operationName,
      });
      return {
        ...(result.data !== undefined ? { data: result.data } : {}),
        ...(result.errors !== undefined ? { errors: result.errors.map((e) => e.toJSON()) } : {}),
      };
    }
    if (reader.kind === 'display') {
      // A display's fields are all in the event; nothing else may be read by its token.
      throw new Error('a display subscription selected a field the live event lacks');
    }
    const headers: GatewayContext['headers'] = {
      [REQUEST_ID_HEADER]: event.id,
      'accept-language': reader.language,
      ...(reader.kind === 'token'
        ? { [TICKET_TOKEN_HEADER]: reader.token }
        : {
            authorization: reader.authorization,
            ...(reader.branchHeader !== undefined ? { [BRANCH_HEADER]: reader.branchHeader } : {}),
          }),
    };
    return this.runQuery(plan.query, { ...variables, [LIVE_TICKET_ID]: String(event.ticketId) }, headers);
  }

  private answerableFrom(ticket: object): boolean {
    const { plan, reader } = this.subscription;
    if (plan.nested) return false;
    for (const field of plan.fields) {
      if (field === '__typename') continue;
      if (!(field in ticket)) return false;
      if (reader.kind === 'token' && HIDDEN_FROM_TOKEN.has(field)) return false;
    }
    return true;
  }
}

/** Every live subscription of this gateway process, indexed by what an event names. */
export class LiveHub {
  private readonly groups = new Map<string, LiveGroup>();
  /** `token:<token>` and `branch:<id>` to the groups reading that ticket or branch. */
  private readonly bySlot = new Map<string, Set<LiveGroup>>();
  private sinkCount = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly runQuery: RunQuery,
    private readonly logger: Logger,
    /** Told each time the last subscriber leaves. */
    private readonly emptied: () => void = () => undefined,
  ) {}

  get subscribers(): number {
    return this.sinkCount;
  }

  /** Subscribers per subscription field (`ticketUpdated`…), counted when metrics are scraped. */
  subscribersByField(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const group of this.groups.values()) {
      const field = group.subscription.rootField;
      counts.set(field, (counts.get(field) ?? 0) + group.sinks.size);
    }
    return counts;
  }

  join(subscription: LiveSubscription, socket: LiveSocket, operationId: string): LiveSink {
    const key = groupKey(subscription);
    let group = this.groups.get(key);
    if (group === undefined) {
      group = new LiveGroup(subscription, this.schema, this.runQuery, this.logger);
      this.groups.set(key, group);
      const slot = slotOf(subscription.reader);
      const slotGroups = this.bySlot.get(slot) ?? new Set<LiveGroup>();
      slotGroups.add(group);
      this.bySlot.set(slot, slotGroups);
    }
    const joined = group;
    const sink = new LiveSink(socket, operationId, (ended) => {
      this.sinkCount -= 1;
      joined.sinks.delete(ended);
      if (joined.sinks.size === 0) this.leave(key, joined);
      if (this.sinkCount === 0) this.emptied();
    });
    group.sinks.add(sink);
    this.sinkCount += 1;
    return sink;
  }

  dispatch(event: LiveEvent): void {
    for (const slot of [`token:${event.token}`, `branch:${event.branchId}`]) {
      for (const group of this.bySlot.get(slot) ?? []) group.deliver(event);
    }
  }

  private leave(key: string, group: LiveGroup): void {
    this.groups.delete(key);
    const slot = slotOf(group.subscription.reader);
    const slotGroups = this.bySlot.get(slot);
    slotGroups?.delete(group);
    if (slotGroups?.size === 0) this.bySlot.delete(slot);
  }
}

/** graphql-ws's `next` message of an operation, around a result already serialised. */
function nextFrame(operationId: string, resultJson: string): Buffer {
  return Buffer.from(`{"id":${JSON.stringify(operationId)},"type":"next","payload":${resultJson}}`);
}

function slotOf(reader: LiveReader): string {
  return reader.kind === 'token' ? `token:${reader.token}` : `branch:${reader.branchId}`;
}

function groupKey({ reader, plan, variables, operationName }: LiveSubscription): string {
  const who = reader.kind === 'branch' ? [reader.authorization, reader.branchHeader ?? null] : reader.token;
  return JSON.stringify([reader.kind, who, reader.language, plan.query, operationName ?? null, variables]);
}
