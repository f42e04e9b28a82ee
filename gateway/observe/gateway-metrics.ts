import type { ApolloServerPlugin } from '@apollo/server';
import type { Fetcher } from '@apollo/utils.fetcher';
import { Kind, type DocumentNode, type GraphQLError, type OperationDefinitionNode } from 'graphql';
import type { RateDecision, RatePolicy } from '../../common/rate-budget';
import { BoundedLabel, DURATION_BUCKETS, type ProcessMetrics } from '../../common/metrics';
import type { GatewayContext } from '../context';

/**
 * Distinct operation names kept as label values. Clients name their operations freely, and the
 * adapter's operations live in a door the gateway may not import, so a cap bounds the series
 * instead of an allow-list: past it every new name is `other`. Only a credential the graph knows
 * may take a place under it (`OperationSender`).
 */
export const OPERATION_NAME_CAP = 100;

/**
 * Who sent an operation, which decides whether its name becomes a label value: the platform's own
 * (the REST adapter's operations, a set fixed in its code) always; a credential the graph knows
 * while the cap has room; anyone else only a name already kept, so that callers without a
 * credential cannot fill the places with invented names before the clients that are someone.
 */
export type OperationSender = 'platform' | 'credentialed' | 'anonymous';

/** The budgets counted per client address: the count of a caller the graph knows by no credential. */
const ADDRESS_BUDGETS: ReadonlySet<RatePolicy['name']> = new Set(['public', 'public-writes']);

/** The sender of an operation, from its context and the decisions of its count. */
export function senderOf(
  context: Pick<GatewayContext, 'platform'>,
  decisions: readonly RateDecision[],
): OperationSender {
  if (context.platform === true) return 'platform';
  return decisions.some((decision) => !ADDRESS_BUDGETS.has(decision.policy.name))
    ? 'credentialed'
    : 'anonymous';
}

/** Why the gateway turned an operation away before planning it. */
export type RefusalReason = 'cost' | 'depth' | 'aliases' | 'directives' | 'tokens' | 'persisted_query_miss';

/** The limit an error names, from the codes and messages of graphql-js, graphql-armor and Apollo. */
export function refusalReasonOf(error: GraphQLError): RefusalReason | undefined {
  const extensions = error.extensions as { code?: unknown; cost?: unknown } | undefined;
  if (extensions?.code === 'PERSISTED_QUERY_NOT_FOUND') return 'persisted_query_miss';
  if (extensions?.cost !== undefined) return 'cost';
  const message = error.message;
  // graphql-js spells it "more that" in some versions.
  if (/^Syntax Error: Document contains more tha[nt] \d+ tokens/.test(message)) return 'tokens';
  if (message.includes('Query depth limit of')) return 'depth';
  if (message.includes('Aliases limit of')) return 'aliases';
  if (message.includes('Directives limit of')) return 'directives';
  return undefined;
}

function operationOf(document: DocumentNode | undefined, name: string | null | undefined) {
  const operations = (document?.definitions ?? []).filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  return name ? operations.find((operation) => operation.name?.value === name) : operations[0];
}

/** A door's refusal by rate budget: `graphql` over HTTP, `live` over graphql-ws. */
export type RateLimitedDoor = 'graphql' | 'live';

/** What the live server shows of itself on scrape. */
export interface LiveFigures {
  sockets(): number;
  subscribersByField(): Map<string, number>;
}

/** The gateway's own families, beside the HTTP and runtime ones every process has. */
export class GatewayMetrics {
  /** The platform's own operation names: as many as the adapter declares, outside the cap. */
  private readonly platformNames = new Set<string>();
  private readonly operationNames = new BoundedLabel(OPERATION_NAME_CAP);
  private readonly operations;
  private readonly refused;
  private readonly rateLimited;
  private readonly subgraphDuration;
  private readonly sharedFetches;
  private live?: LiveFigures;

  constructor(metrics: ProcessMetrics) {
    this.operations = metrics.counter(
      'nida_graphql_operations_total',
      'GraphQL operations answered, by type, name (capped: later names are "other") and result.',
      ['operation_type', 'operation_name', 'result'],
    );
    this.refused = metrics.counter(
      'nida_graphql_refused_total',
      'Operations refused before planning, by the limit they broke.',
      ['reason'],
    );
    this.rateLimited = metrics.counter(
      'nida_rate_limited_total',
      'Operations refused by a rate budget, by door and the budget (principal) that ran out.',
      ['door', 'principal'],
    );
    this.subgraphDuration = metrics.histogram(
      'nida_subgraph_request_duration_seconds',
      "Duration of the gateway's fetches from each subgraph.",
      ['subgraph'],
      DURATION_BUCKETS,
    );
    this.sharedFetches = metrics.counter(
      'nida_subgraph_fetches_shared_total',
      'Subgraph fetches not sent because an identical one was in flight, whose answer they shared.',
      ['subgraph'],
    );
    metrics.gauge('nida_live_sockets', 'Open graphql-ws sockets.', [], (gauge) => {
      gauge.set(this.live?.sockets() ?? 0);
    });
    metrics.gauge(
      'nida_live_subscriptions',
      'Live subscriptions, by subscription field.',
      ['field'],
      (gauge) => {
        gauge.reset();
        for (const [field, count] of this.live?.subscribersByField() ?? []) gauge.set({ field }, count);
      },
    );
  }

  /** The live server, once it listens (it shares the HTTP server's port). */
  watchLive(live: LiveFigures): void {
    this.live = live;
  }

  rateLimitedBy(door: RateLimitedDoor, refused: RateDecision): void {
    this.rateLimited.inc({ door, principal: refused.policy.name });
  }

  /** A fetch to the subgraph joined an identical one in flight instead of being sent. */
  fetchShared(subgraph: string): void {
    this.sharedFetches.inc({ subgraph });
  }

  /** A subgraph's fetcher that times each fetch. */
  timedFetcher(subgraph: string, fetcher: Fetcher): Fetcher {
    const histogram = this.subgraphDuration;
    return async (url, init) => {
      const end = histogram.startTimer({ subgraph });
      try {
        return await fetcher(url, init);
      } finally {
        end();
      }
    };
  }

  /** An operation answered without going through Apollo's plugins (gateway/fetch/prepared-operations.ts). */
  answered(
    operation: OperationDefinitionNode,
    name: string,
    result: 'success' | 'error' | 'refused',
    sender: OperationSender,
  ): void {
    this.countOperation(operation.operation, name, result, sender);
  }

  /** The label value of an operation's name, as its sender may have it (`OperationSender`). */
  operationNameLabel(name: string, sender: OperationSender): string {
    if (name === '') return 'anonymous';
    if (this.platformNames.has(name)) return name;
    switch (sender) {
      case 'platform':
        this.platformNames.add(name);
        return name;
      case 'credentialed':
        return this.operationNames.value(name);
      case 'anonymous':
        return this.operationNames.kept(name);
    }
  }

  private countOperation(
    type: string,
    name: string,
    result: 'success' | 'error' | 'refused',
    sender: OperationSender,
  ): void {
    this.operations.inc({
      operation_type: type,
      operation_name: this.operationNameLabel(name, sender),
      result,
    });
  }

  /** Counts every answered operation and, among the failed, those a limit refused. */
  plugin(): ApolloServerPlugin<GatewayContext> {
    return {
      requestDidStart: () =>
        Promise.resolve({
          willSendResponse: async ({ operation, operationName, request, document, errors, contextValue }) => {
            // Refused in validation, the operation was never resolved; its document says what it was.
            const sent = operation ?? operationOf(document, request.operationName);
            let result: 'success' | 'error' | 'refused' = 'success';
            for (const error of errors ?? []) {
              const reason = refusalReasonOf(error);
              if (reason !== undefined) {
                this.refused.inc({ reason });
                result = 'refused';
                break;
              }
              const code = (error.extensions as { code?: unknown } | undefined)?.code;
              result = code === 'RATE_LIMITED' ? 'refused' : 'error';
            }
            const name = operationName ?? sent?.name?.value ?? request.operationName ?? '';
            // Settled by now for an operation that ran; for one refused before, it is on its way.
            const decisions = (await contextValue.client?.counting) ?? [];
            this.countOperation(
              sent?.operation ?? 'unknown',
              name,
              result,
              senderOf(contextValue, decisions),
            );
          },
        }),
    };
  }
}
