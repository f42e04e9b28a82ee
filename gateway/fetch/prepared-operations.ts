import type { IncomingHttpHeaders } from 'node:http';
import type { ApolloServerPlugin } from '@apollo/server';
import type {
  ApolloGateway,
  Experimental_DidResolveQueryPlanCallback,
  GraphQLDataSource,
} from '@apollo/gateway';
// Not re-exported by the package's index; the data sources' own module.
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionNode,
  SelectionSetNode,
} from 'graphql';
import {
  BREAK,
  getNamedType,
  isAbstractType,
  Kind,
  OperationTypeNode,
  parse,
  print,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import type { Logger } from '../../common/logger';
import { rateLimitHeaders, type RateDecision } from '../../common/rate-budget';
import { presentsMalformedAuthorization, sentWithoutCredential, type GatewayContext } from '../context';
import { argumentErrors, workUnitsOf, type CostCheck } from '../limits';
import { holdPrefetched, type SettledFetch } from './header-forwarding.data-source';

/**
 * Layer B of docs/design/gateway-fast-path.md: an operation the gateway has already parsed and
 * validated through Apollo's full request pipeline runs again straight through the gateway's
 * executor, without that pipeline's per-request work (its plugins' listeners, the query hash,
 * the document store, content negotiation, the response's assembly), which was most of what this
 * gateway still spent per request beyond a relay's floor (docs/performance-log/peers.md).
 *
 * It serves only what it can prove Apollo would answer the same way: a success. Before anything
 * runs, every check the full path makes (variables of the wrong shape, the input guard, the cost,
 * the count) is made with the same functions, and whatever any of them would refuse is handed to
 * Apollo untouched, whose answer it then is; only a query's count may still be on its way while it
 * runs (gateway/limits/run-ahead.ts), and if it refuses, what ran is dropped and Apollo is handed the
 * request as if nothing had; a mutation without a credential (which the full path
 * counts a second time, as a page write) goes to Apollo before anything too. Once the executor has
 * run, an answer with errors or extensions is handed to Apollo with the result already in hand
 * (`precomputed`), so Apollo formats it, sets its status and headers and runs every plugin, and
 * nothing is executed twice.
 */

/** What the full path learnt of one operation: its document as Apollo parsed and validated it. */
interface Prepared {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The operation's own name, or null for an anonymous one. */
  operationName: string | null;
  queryHash: string;
  /** The document's text. */
  source: string;
  schema: GraphQLSchema;
  /**
   * The operation's one subgraph fetch when the subgraph's answer is the client's answer as it
   * stands (`singleFetchOf`); null when it is not; undefined until the executor has planned it.
   */
  single?: SingleFetch | null;
}

/** A query plan of one fetch whose selection is the client's own (see `singleFetchOf`). */
interface SingleFetch {
  subgraph: string;
  dataSource: GraphQLDataSource;
  query: string;
  operationName: string | undefined;
  document: DocumentNode | undefined;
  variableUsages: readonly string[];
}

/**
 * A body layer B may take: a query string or a persisted query's hash (not both), and nothing it
 * would have to check the shape of.
 */
interface Eligible {
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: { persistedQuery: { version: 1; sha256Hash: string } };
}

/** The `Accept` values answered as `application/json; charset=utf-8`, as Apollo negotiates them. */
const JSON_ACCEPTS = new Set([undefined, '', '*/*', 'application/json']);
const JSON_TYPE = 'application/json; charset=utf-8';

/** Where a handed-over request carries the result layer B already has, for the executor. */
const PRECOMPUTED = Symbol('precomputed gateway result');

type GatewayExecutor = ApolloGateway['executor'];
type ExecutionResult = Awaited<ReturnType<GatewayExecutor>>;
type GatewayRequestContext = Parameters<GatewayExecutor>[0];
/** What the executor came to: a result, or what it threw. */
type Executed = { result: ExecutionResult } | { thrown: unknown };
type HandedOver = GatewayContext & { [PRECOMPUTED]?: Executed };

/** The cache policy Apollo starts each request with (its `newCachePolicy`, not exported). */
function newCachePolicy() {
  return {
    maxAge: undefined as number | undefined,
    scope: undefined as 'PUBLIC' | 'PRIVATE' | undefined,
    restrict(hint: { maxAge?: number; scope?: 'PUBLIC' | 'PRIVATE' }) {
      if (hint.maxAge !== undefined && (this.maxAge === undefined || hint.maxAge < this.maxAge)) {
        this.maxAge = hint.maxAge;
      }
      if (hint.scope !== undefined && this.scope !== 'PRIVATE') this.scope = hint.scope;
    },
    policyIfCacheable() {
      if (this.maxAge === undefined || this.maxAge === 0) return null;
      return { maxAge: this.maxAge, scope: this.scope ?? 'PUBLIC' };
    },
  };
}

/** What the checks of the full path need, as functions of the files that own them. */
export interface PreparedChecks {
  /** Whether the cost estimate lets the operation through (the cost plugin of limits/query-limits.ts). */
  withinCost: CostCheck;
  /** A client operation's count, as the rate-limit plugin decides it (limits/rate-limit.ts). */
  decisionsOf(
    context: GatewayContext,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables?: Readonly<Record<string, unknown>>,
  ): Promise<RateDecision[]>;
  /**
   * Counts an answered operation, as the metrics plugin does (observe/gateway-metrics.ts), with what says
   * who sent it: its context and the decisions of its count.
   */
  answered(
    operation: OperationDefinitionNode,
    operationName: string,
    result: 'success',
    context: GatewayContext,
    decisions: readonly RateDecision[],
  ): void;
  logger: Logger;
}

/** A success answered by layer B: what the door writes. */
export interface PreparedAnswer {
  headers: Record<string, string>;
  body: string;
}

export type PreparedOutcome =
  | { kind: 'answered'; answer: PreparedAnswer }
  /** Apollo answers: untouched, or with the result in hand (already in the context). */
  | { kind: 'apollo' };

export class PreparedOperations {
  private readonly records = new Map<string, Prepared>();
  /**
   * The records of documents registered as persisted queries, by their SHA-256, for requests sent
   * by hash alone (the REST adapter's). Apollo answers a hash it has let go of with
   * PERSISTED_QUERY_NOT_FOUND; this serves it as long as it holds the record, which only ever
   * spares the client sending the document again.
   */
  private readonly byHash = new Map<string, Prepared>();
  private executor?: GatewayExecutor;
  /** What the gateway's result shaping may change in a subgraph's answer (`reshapedBySupergraph`). */
  private reshaped: ReadonlySet<string> = new Set();

  constructor(
    private readonly checks: PreparedChecks,
    private readonly cap = 1_000,
  ) {}

  /**
   * Wraps the gateway's executor, before Apollo starts and takes it: a request handed over with
   * its result gets that result instead of a second execution. Records are dropped whenever the
   * schema changes, as Apollo drops its parsed documents.
   */
  attach(gateway: ApolloGateway): void {
    const original = gateway.executor;
    this.executor = original;
    gateway.executor = async (requestContext) => {
      const context = requestContext.context as HandedOver;
      const executed = context[PRECOMPUTED];
      if (executed === undefined) return original(requestContext);
      delete context[PRECOMPUTED];
      if ('result' in executed) return executed.result;
      throw executed.thrown;
    };
    gateway.onSchemaLoadOrUpdate(({ coreSupergraphSdl }) => {
      this.records.clear();
      this.byHash.clear();
      this.reshaped = reshapedBySupergraph(coreSupergraphSdl);
    });
    // The executor reports each plan it is about to run, fresh or from its store: the first one
    // of a prepared operation decides whether later requests may skip the executor altogether.
    const hooked = gateway as unknown as { experimental_didResolveQueryPlan?: DidResolveQueryPlan };
    const earlier = hooked.experimental_didResolveQueryPlan;
    hooked.experimental_didResolveQueryPlan = (options) => {
      earlier?.(options);
      const { source, request } = options.requestContext;
      if (source === undefined) return;
      const prepared = this.records.get(keyOf(source, request.operationName ?? undefined));
      if (prepared === undefined || prepared.single !== undefined) return;
      prepared.single = singleFetchOf(options.queryPlan, options.serviceMap, prepared, this.reshaped);
    };
  }

  /**
   * Remembers every operation the full path is about to execute (so parsed, validated and let
   * through by every plugin) for later requests; by its hash too when it came as a persisted
   * query, which Apollo has then registered by that hash (after the same checks).
   */
  plugin(): ApolloServerPlugin<GatewayContext> {
    return {
      requestDidStart: () =>
        Promise.resolve({
          executionDidStart: ({ source, request, document, operation, operationName, queryHash, schema }) => {
            if (operation === undefined || source === undefined || queryHash === undefined) {
              return Promise.resolve();
            }
            const named = request.operationName ?? undefined;
            const key = keyOf(source, named);
            let prepared = this.records.get(key);
            if (prepared === undefined) {
              // A client sending ever new documents only restarts the records, as the planner's are few.
              if (this.records.size >= this.cap) {
                this.records.clear();
                this.byHash.clear();
              }
              prepared = { document, operation, operationName, queryHash, source, schema };
              this.records.set(key, prepared);
            }
            if (request.extensions?.persistedQuery !== undefined)
              this.byHash.set(keyOf(queryHash, named), prepared);
            return Promise.resolve();
          },
        }),
    };
  }

  /**
   * The prepared record for a request, when layer B may take it: a body of a query string with
   * optional variables (an object) and operation name (a string), nothing else Apollo checks the
   * shape of, an `Accept` Apollo answers with JSON, and an operation the full path has prepared.
   */
  match(body: unknown, headers: IncomingHttpHeaders): { prepared: Prepared; request: Eligible } | undefined {
    if (this.executor === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) {
      return undefined;
    }
    const { query, operationName, variables, extensions } = body as Record<string, unknown>;
    const hash = persistedHashOf(extensions);
    if (query === undefined ? hash === undefined : typeof query !== 'string' || extensions !== undefined) {
      return undefined;
    }
    if (operationName !== undefined && typeof operationName !== 'string') return undefined;
    if (
      variables !== undefined &&
      (typeof variables !== 'object' || variables === null || Array.isArray(variables))
    ) {
      return undefined;
    }
    if (!JSON_ACCEPTS.has(headers.accept) || headers['apollo-query-plan-experimental'] !== undefined) {
      return undefined;
    }
    let prepared: Prepared | undefined;
    if (typeof query === 'string') prepared = this.records.get(keyOf(query, operationName));
    else if (hash !== undefined) prepared = this.byHash.get(keyOf(hash, operationName));
    if (prepared === undefined || prepared.operation.operation === OperationTypeNode.SUBSCRIPTION)
      return undefined;
    return { prepared, request: body };
  }

  /**
   * Runs a matched request with its context (as Apollo's context function built it): answered
   * here when it succeeds, else handed to Apollo (see the class's comment).
   */
  async run(
    { prepared, request }: { prepared: Prepared; request: Eligible },
    context: GatewayContext,
  ): Promise<PreparedOutcome> {
    const { document, operation, schema } = prepared;
    const { client, headers } = context;
    const variables = request.variables;
    if (
      client !== undefined &&
      ((sentWithoutCredential(headers) && operation.operation === OperationTypeNode.MUTATION) ||
        presentsMalformedAuthorization(headers))
    ) {
      return { kind: 'apollo' };
    }
    if (Object.keys(argumentErrors(schema, document, operation, variables ?? {})).length > 0) {
      return { kind: 'apollo' };
    }
    if (
      client !== undefined &&
      !this.checks.withinCost(schema, document, variables, prepared.operationName ?? undefined)
    ) {
      return { kind: 'apollo' };
    }
    let decisions: readonly RateDecision[] = [];
    // A query may go to its subgraphs while its count is on its way (gateway/limits/run-ahead.ts); a
    // mutation, a query of several root fields (counted again once its first count is in) and a
    // query the credential's last count left no room for wait for their counts.
    const ahead =
      client !== undefined &&
      operation.operation === OperationTypeNode.QUERY &&
      workUnitsOf(document, operation) === 1
        ? client.runAhead?.()
        : undefined;
    if (client !== undefined && ahead === undefined) {
      decisions = await this.checks.decisionsOf(context, document, operation, variables);
      if (decisions.some((decision) => !decision.allowed)) return { kind: 'apollo' };
    }
    const overallCachePolicy = newCachePolicy();
    let executed: Executed;
    try {
      executed = { result: await this.execute(prepared, request, context, overallCachePolicy) };
    } catch (thrown) {
      executed = { thrown };
    } finally {
      if (ahead !== undefined) {
        decisions = await this.checks.decisionsOf(context, document, operation, variables);
        ahead();
      }
    }
    // Refused after all: what was fetched is dropped, and Apollo answers the refusal as always.
    if (decisions.some((decision) => !decision.allowed)) return { kind: 'apollo' };
    if ('thrown' in executed) return handOver(request, prepared, context, executed);
    const { result } = executed;
    if ((result.errors !== undefined && result.errors.length > 0) || result.extensions !== undefined) {
      return handOver(request, prepared, context, { result });
    }
    const answerHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(rateLimitHeaders(decisions)))
      answerHeaders[name.toLowerCase()] = value;
    const cacheable = overallCachePolicy.policyIfCacheable();
    answerHeaders['cache-control'] =
      cacheable === null ? 'no-store' : `max-age=${cacheable.maxAge}, ${cacheable.scope.toLowerCase()}`;
    answerHeaders['content-type'] = JSON_TYPE;
    this.checks.answered(
      operation,
      prepared.operationName ?? request.operationName ?? '',
      'success',
      context,
      decisions,
    );
    return {
      kind: 'answered',
      answer: { headers: answerHeaders, body: `${JSON.stringify({ data: result.data })}\n` },
    };
  }

  /** Runs a prepared operation through the executor, or as its one fetch (`fetchOnce`). */
  private execute(
    prepared: Prepared,
    request: Eligible,
    context: GatewayContext,
    overallCachePolicy: ReturnType<typeof newCachePolicy>,
  ): Promise<ExecutionResult> {
    // As Apollo hands the request to its gateway: the fields the client sent, no others.
    const gatewayRequest: GatewayRequestContext['request'] = {};
    if ('query' in request) gatewayRequest.query = request.query;
    if ('extensions' in request) gatewayRequest.extensions = request.extensions;
    if ('operationName' in request) gatewayRequest.operationName = request.operationName;
    if ('variables' in request) gatewayRequest.variables = request.variables;
    const requestContext: GatewayRequestContext = {
      request: gatewayRequest,
      logger: this.checks.logger,
      schema: prepared.schema,
      schemaHash: undefined as unknown as GatewayRequestContext['schemaHash'],
      context,
      cache: undefined as unknown as GatewayRequestContext['cache'],
      queryHash: prepared.queryHash,
      document: prepared.document,
      source: prepared.source,
      operationName: prepared.operationName,
      operation: prepared.operation,
      metrics: {},
      overallCachePolicy,
      requestIsBatched: false,
    };
    return prepared.single !== undefined && prepared.single !== null
      ? this.fetchOnce(prepared.single, requestContext)
      : this.executor!(requestContext);
  }

  /**
   * Runs an operation whose plan is one fetch of the client's own selection: the subgraph's answer,
   * when it has data and no errors, is the client's, and goes out without the executor, which would
   * only copy it field by field (docs/design/gateway-fast-path.md, step 5). Any other answer, or a
   * failure to send, goes to the executor with the fetch already settled (`holdPrefetched`), so it
   * shapes errors as always and the subgraph is never asked twice.
   */
  private async fetchOnce(
    single: SingleFetch,
    requestContext: GatewayRequestContext,
  ): Promise<ExecutionResult> {
    const given = requestContext.request.variables ?? {};
    const definitions = requestContext.operation.variableDefinitions;
    // Variables the operation cannot take are the executor's to refuse, before any fetch.
    if (definitions !== undefined && definitions.length > 0) {
      if (getVariableValues(requestContext.schema, definitions, given).errors !== undefined) {
        return this.executor!(requestContext);
      }
    }
    // As executeQueryPlan picks them: those the fetch uses, given and not undefined.
    const variables: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const name of single.variableUsages) {
      if (Object.prototype.hasOwnProperty.call(given, name) && given[name] !== undefined)
        variables[name] = given[name];
    }
    const context = requestContext.context as GatewayContext;
    let settled: SettledFetch;
    try {
      const response = await single.dataSource.process({
        kind: GraphQLDataSourceRequestKind.INCOMING_OPERATION,
        request: { query: single.query, variables, operationName: single.operationName, http: undefined },
        incomingRequestContext: requestContext,
        context,
        document: single.document,
        pathInIncomingRequest: [],
      });
      const { data, errors } = response;
      if ((errors === undefined || errors.length === 0) && typeof data === 'object' && data !== null) {
        return { data };
      }
      settled = { response };
    } catch (thrown) {
      settled = { thrown };
    }
    holdPrefetched(context, single.subgraph, single.query, settled);
    return this.executor!(requestContext);
  }
}

/**
 * Hands an executed request to Apollo with what the executor came to. A request sent by hash
 * alone gets its document too: Apollo may have let the hash go meanwhile, and would then answer
 * PERSISTED_QUERY_NOT_FOUND for an operation already run, which its client would send again.
 */
function handOver(
  request: Eligible,
  prepared: Prepared,
  context: GatewayContext,
  executed: Executed,
): PreparedOutcome {
  request.query ??= prepared.source;
  (context as HandedOver)[PRECOMPUTED] = executed;
  return { kind: 'apollo' };
}

/** A persisted query's hash, when `extensions` holds exactly a version 1 one. */
function persistedHashOf(extensions: unknown): string | undefined {
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return undefined;
  const keys = Object.keys(extensions);
  if (keys.length !== 1 || keys[0] !== 'persistedQuery') return undefined;
  const persisted = (extensions as { persistedQuery: unknown }).persistedQuery;
  if (typeof persisted !== 'object' || persisted === null) return undefined;
  const { version, sha256Hash } = persisted as { version?: unknown; sha256Hash?: unknown };
  if (version !== 1 || typeof sha256Hash !== 'string' || Object.keys(persisted).length !== 2)
    return undefined;
  return sha256Hash;
}

function keyOf(query: string, operationName: string | undefined): string {
  return `${operationName ?? ''}\u0000${query}`;
}

type DidResolveQueryPlan = Experimental_DidResolveQueryPlanCallback;
type QueryPlan = Parameters<DidResolveQueryPlan>[0]['queryPlan'];

/**
 * The fields and types whose values the gateway's result shaping may change on their way from a
 * subgraph to the client, read from the supergraph: a field a subgraph declares with another type
 * than the graph's (`@join__field(type: …)`, so another nullability), and an enum with a value the
 * clients do not see (`@inaccessible`), which shaping would refuse. `Type.field` or `Type`.
 */
export function reshapedBySupergraph(supergraphSdl: string): Set<string> {
  const reshaped = new Set<string>();
  const document = parse(supergraphSdl, { noLocation: true });
  for (const definition of document.definitions) {
    if (definition.kind === Kind.ENUM_TYPE_DEFINITION || definition.kind === Kind.ENUM_TYPE_EXTENSION) {
      if (
        definition.values?.some((value) => value.directives?.some((d) => d.name.value === 'inaccessible'))
      ) {
        reshaped.add(definition.name.value);
      }
      continue;
    }
    if (!('fields' in definition) || definition.fields === undefined) continue;
    for (const field of definition.fields) {
      const typed = field.directives?.some(
        (d) =>
          d.name.value === 'join__field' && d.arguments?.some((argument) => argument.name.value === 'type'),
      );
      if (typed === true) reshaped.add(`${definition.name.value}.${field.name.value}`);
    }
  }
  return reshaped;
}

/**
 * The plan's one fetch, when the subgraph's answer to it is exactly what the gateway's result
 * shaping (`computeResponse`) would make of it: a plan of a single fetch at the root, with
 * nothing required, rewritten or deferred, whose subgraph operation selects what the client's
 * does, field for field and in order, with the same variables, once each side's fragments are
 * written out in place (`inlined`); and a client operation with no directives and no field of an
 * abstract type (where shaping reads `__typename` and evaluates type conditions), none of whose
 * fields or enums the supergraph reshapes. Null otherwise.
 */
export function singleFetchOf(
  plan: QueryPlan,
  serviceMap: Parameters<DidResolveQueryPlan>[0]['serviceMap'],
  prepared: Pick<Prepared, 'document' | 'operation' | 'schema'>,
  reshaped: ReadonlySet<string>,
): SingleFetch | null {
  const fetch = plan.node;
  if (fetch?.kind !== 'Fetch') return null;
  if (fetch.requires !== undefined || fetch.hasDefers === true) return null;
  if (
    (fetch.inputRewrites?.length ?? 0) +
      (fetch.outputRewrites?.length ?? 0) +
      (fetch.contextRewrites?.length ?? 0) >
    0
  )
    return null;
  if (fetch.operationKind !== prepared.operation.operation) return null;
  const dataSource = serviceMap[fetch.serviceName];
  if (dataSource === undefined) return null;
  const subgraphDocument = fetch.operationDocumentNode ?? parse(fetch.operation, { noLocation: true });
  const subgraphOperation = inlined(subgraphDocument);
  const operation = inlined(prepared.document);
  if (subgraphOperation === null || operation === null) return null;
  if (print(subgraphOperation.selectionSet) !== print(operation.selectionSet)) return null;
  const definitionsOf = (node: OperationDefinitionNode) =>
    (node.variableDefinitions ?? [])
      .map((definition) => print(definition))
      .sort()
      .join(',');
  if (definitionsOf(subgraphOperation) !== definitionsOf(operation)) return null;
  if ((operation.directives?.length ?? 0) > 0) return null;

  let plain = true;
  const types = new TypeInfo(prepared.schema);
  visit(
    operation,
    visitWithTypeInfo(types, {
      enter(node) {
        if (node.kind === Kind.DIRECTIVE) {
          plain = false;
          return BREAK;
        }
        if (node.kind !== Kind.FIELD) return undefined;
        const parent = types.getParentType();
        const type = types.getType();
        if (parent === null || parent === undefined || type === null || type === undefined) {
          plain = false;
          return BREAK;
        }
        const named = getNamedType(type);
        if (isAbstractType(parent) || isAbstractType(named) || reshaped.has(named.name)) {
          plain = false;
          return BREAK;
        }
        if (reshaped.has(`${parent.name}.${node.name.value}`)) {
          plain = false;
          return BREAK;
        }
        return undefined;
      },
    }),
  );
  if (!plain) return null;
  return {
    subgraph: fetch.serviceName,
    dataSource,
    query: fetch.operation,
    operationName: fetch.operationName,
    document: fetch.operationDocumentNode,
    variableUsages: fetch.variableUsages ?? [],
  };
}

/**
 * A document's one operation with every fragment, named or inline, written out where it is used,
 * in order: the sequence of fields that execution collects for each selection set, whichever way
 * the document spelled them. Null for a document of more than one operation, or where a fragment
 * or a spread of one carries a directive (which shaping would have to evaluate). A type condition
 * is dropped: under an object type, validation lets through only conditions that type meets, and
 * `singleFetchOf` refuses every field under an abstract one.
 */
export function inlined(document: DocumentNode): OperationDefinitionNode | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operation: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      if ((definition.directives?.length ?? 0) > 0) return null;
      fragments.set(definition.name.value, definition);
    } else if (definition.kind === Kind.OPERATION_DEFINITION && operation === undefined) {
      operation = definition;
    } else return null;
  }
  if (operation === undefined) return null;
  const selectionSet = inlinedSelections(operation.selectionSet, fragments);
  return selectionSet === null ? null : { ...operation, selectionSet };
}

function inlinedSelections(
  set: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): SelectionSetNode | null {
  const selections: SelectionNode[] = [];
  for (const selection of set.selections) {
    if ((selection.directives?.length ?? 0) > 0) return null;
    if (selection.kind === Kind.FIELD) {
      if (selection.selectionSet === undefined) {
        selections.push(selection);
        continue;
      }
      const inner = inlinedSelections(selection.selectionSet, fragments);
      if (inner === null) return null;
      selections.push({ ...selection, selectionSet: inner });
      continue;
    }
    const body =
      selection.kind === Kind.FRAGMENT_SPREAD
        ? fragments.get(selection.name.value)?.selectionSet
        : selection.selectionSet;
    // Validation refuses unknown and cyclic spreads before a document gets here.
    if (body === undefined) return null;
    const inner = inlinedSelections(body, fragments);
    if (inner === null) return null;
    selections.push(...inner.selections);
  }
  return { kind: Kind.SELECTION_SET, selections };
}
