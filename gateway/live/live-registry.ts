import {
  createSourceEventStream,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  OperationTypeNode,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FormattedExecutionResult,
  type GraphQLField,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { Config } from '../../common/config';
import { NotFoundError, UnauthenticatedError } from '../../common/errors';
import type { RunQuery } from '../context';
import {
  costError,
  estimateCost,
  parseWithinLimits,
  queryLimitRules,
  withoutSuggestions,
  type CostModel,
} from '../limits';
import { headersOf, type LiveConnection } from './live-admission';
import type { LiveAccess } from './live-access';
import type { LiveHub, LiveReader, LiveSink } from './live-hub';
import type { Turn } from './live-order';
import { livePlanOf, type LivePlan } from './live-plan';
import { liveSocketOf } from './live-wire';

/**
 * Tokens this process has seen name a ticket. Tickets are never deleted, so a known token stays
 * good; remembering them spares the tickets subgraph a query per subscribe when every page of a
 * busy venue reconnects at once (after a deploy, say).
 */
const KNOWN_TOKENS_MAX = 50_000;

/**
 * Parsed and validated documents by their text: thousands of customer pages send the same
 * subscription, and each would otherwise hold its own syntax tree for as long as it is open.
 */
const DOCUMENTS_MAX = 1_000;

/** What the live server's resolvers know of one operation. */
export interface LiveContext {
  connection: LiveConnection;
  /** The client's id of this operation, which every `next` frame carries. */
  id: string;
  payload: SubscribePayload;
}

export interface LiveRegistryOptions {
  hub: LiveHub;
  access: Pick<LiveAccess, 'watchDisplay'>;
  runQuery: RunQuery;
  queryLimits: Config['graphqlLimits'];
  /** The list sizes and weights the subgraphs declared, for a subscription's estimate. */
  costModel: CostModel;
  /** Validation messages then suggest no field names, as Apollo's over HTTP do not. */
  production: boolean;
  /** Resolves once live events reach this process (LiveFeed.follow); awaited before each join. */
  follow?: () => Promise<void>;
}

type LiveField = GraphQLField<unknown, LiveContext>;

/**
 * The operations sockets send and the subscriptions they hold: each document parsed and validated
 * once for every socket that sends its text, a subscription refused as HTTP would refuse it, and
 * the three subscription fields, which join their subscriber to the hub under the reader its
 * arguments and credential name. It sets those fields' `subscribe` on the schema it is given.
 */
export class LiveRegistry {
  private readonly documents = new Map<string, DocumentNode>();
  private readonly validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  private readonly plans = new WeakMap<FieldNode, LivePlan>();
  private readonly knownTokens = new Set<string>();
  /** Each operation's place in its socket's order, by the message payload graphql-ws hands over. */
  private readonly turns = new WeakMap<SubscribePayload, Turn>();
  private readonly limitRules: ValidationRule[];

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly options: LiveRegistryOptions,
  ) {
    this.limitRules = queryLimitRules(options.queryLimits);
    const fields = schema.getSubscriptionType()?.getFields() ?? {};
    const ticketUpdated = fields.ticketUpdated as LiveField | undefined;
    const branchUpdated = fields.branchTicketsUpdated as LiveField | undefined;
    const displayUpdated = fields.displayTicketsUpdated as LiveField | undefined;
    if (ticketUpdated === undefined || branchUpdated === undefined || displayUpdated === undefined) {
      throw new Error(
        'the supergraph lacks Subscription.ticketUpdated, branchTicketsUpdated or displayTicketsUpdated',
      );
    }
    ticketUpdated.subscribe = (_root, args: { token?: unknown }, context, info) =>
      this.ticketUpdated(String(args.token), context, info);
    branchUpdated.subscribe = (_root, _args, context, info) => this.branchTicketsUpdated(context, info);
    displayUpdated.subscribe = (_root, args: { token?: unknown }, context, info) =>
      this.displayTicketsUpdated(String(args.token), context, info);
  }

  /**
   * graphql-ws's `onSubscribe` past admission: what to run, or the errors the operation is
   * answered with while its socket stays open.
   */
  operationOf(payload: SubscribePayload): ExecutionArgs | readonly GraphQLError[] {
    const document = this.documentOf(payload.query);
    if (document instanceof GraphQLError) return [document];
    const errors = this.validationErrorsOf(document);
    if (errors.length > 0) return errors;
    // Queries and mutations are weighed by the gateway's Apollo pipeline they run through.
    const operation = getOperationAST(document, payload.operationName);
    if (operation?.operation === OperationTypeNode.SUBSCRIPTION) {
      const refused = this.subscriptionErrorsOf(document, operation, payload);
      if (refused !== undefined) return refused;
    }
    return {
      schema: this.schema,
      document,
      operationName: payload.operationName,
      variableValues: payload.variables,
    };
  }

  /**
   * graphql-ws's `onSubscribe`: `operationOf` behind the socket's admission, in the order the socket
   * sent its operations (OperationOrder). Only a subscription takes effect later, once joined.
   */
  async admit(
    connection: LiveConnection,
    payload: SubscribePayload,
    refusal: () => Promise<readonly GraphQLError[] | undefined>,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const turn = connection.order.arrive();
    this.turns.set(payload, turn);
    let operation: ExecutionArgs | readonly GraphQLError[];
    try {
      operation = (await refusal()) ?? this.operationOf(payload);
    } catch (error) {
      turn.settle();
      throw error;
    }
    // A refused operation never runs, and a query's effect is its answer, which nothing sent after
    // it waits for: only a subscription takes effect later.
    if (
      isErrors(operation) ||
      getOperationAST(operation.document, operation.operationName)?.operation !==
        OperationTypeNode.SUBSCRIPTION
    ) {
      turn.settle();
    }
    return operation;
  }

  /**
   * A subscription's source stream, once the operations sent before it took effect; it has taken
   * effect itself once this settles, joined or refused.
   */
  async subscribe(args: ExecutionArgs): Promise<AsyncIterable<ExecutionResult> | ExecutionResult> {
    const turn = this.turns.get((args.contextValue as LiveContext).payload);
    try {
      await turn?.ahead();
      return (await createSourceEventStream(args)) as AsyncIterable<ExecutionResult> | ExecutionResult;
    } finally {
      turn?.settle();
    }
  }

  /**
   * Queries and mutations sent over a socket run through the gateway with its connection's
   * credentials, once the subscriptions sent before them listen.
   */
  async execute(args: ExecutionArgs): Promise<ExecutionResult> {
    const { connection, payload } = args.contextValue as LiveContext;
    await this.turns.get(payload)?.ahead();
    return this.options.runQuery(payload.query, payload.variables ?? {}, headersOf(connection), {
      address: connection.address,
      // Its count as it arrived, before it was parsed (LiveAdmission.refusalOf).
      counting: Promise.resolve(connection.counted?.get(payload) ?? []),
    }) as Promise<ExecutionResult | FormattedExecutionResult> as Promise<ExecutionResult>;
  }

  /** A document once parsed, or the syntax error a client is answered with, not a closed socket. */
  private documentOf(text: string): DocumentNode | GraphQLError {
    let document = this.documents.get(text);
    if (document === undefined) {
      try {
        document = parseWithinLimits(text, this.options.queryLimits);
      } catch (error) {
        return withCode(
          error instanceof GraphQLError ? error : new GraphQLError(String(error)),
          'GRAPHQL_PARSE_FAILED',
        );
      }
      if (this.documents.size >= DOCUMENTS_MAX) this.documents.clear();
      this.documents.set(text, document);
    }
    return document;
  }

  private validationErrorsOf(document: DocumentNode): readonly GraphQLError[] {
    let errors = this.validated.get(document);
    if (errors === undefined) {
      const rewrite = this.options.production ? withoutSuggestions : undefined;
      errors = validate(this.schema, document, [...specifiedRules, ...this.limitRules]).map((error) =>
        withCode(error, 'GRAPHQL_VALIDATION_FAILED', rewrite),
      );
      this.validated.set(document, errors);
    }
    return errors;
  }

  private subscriptionErrorsOf(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    payload: SubscribePayload,
  ): GraphQLError[] | undefined {
    // Variables are the client's to get right, as over HTTP: a missing or mistyped one is
    // BAD_USER_INPUT for that operation, not a throw that would close the socket with 4500.
    const coerced = getVariableValues(
      this.schema,
      operation.variableDefinitions ?? [],
      payload.variables ?? {},
    );
    if (coerced.errors !== undefined) {
      return coerced.errors.map((error) => withCode(error, 'BAD_USER_INPUT'));
    }
    const limits = this.options.queryLimits;
    const estimate = estimateCost(
      this.schema,
      this.options.costModel,
      document,
      payload.variables ?? undefined,
      payload.operationName ?? undefined,
    );
    if (estimate.cost > limits.maxCost) return [costError(estimate, limits)];
    return undefined;
  }

  private async ticketUpdated(
    token: string,
    context: LiveContext,
    info: GraphQLResolveInfo,
  ): Promise<LiveSink> {
    await this.checkToken(token);
    return this.join({ kind: 'token', token, language: context.connection.language }, context, info);
  }

  private async branchTicketsUpdated(context: LiveContext, info: GraphQLResolveInfo): Promise<LiveSink> {
    const { authorization, branchHeader, branchId, language } = context.connection;
    if (authorization === undefined || branchId === undefined) {
      throw new UnauthenticatedError(
        'branchTicketsUpdated needs a key, a board device or a session: send {"authorization": "Bearer …"} (and a session’s {"x-branch-id": "…"}) in connection_init.',
      );
    }
    return this.join({ kind: 'branch', branchId, authorization, branchHeader, language }, context, info);
  }

  private async displayTicketsUpdated(
    token: string,
    context: LiveContext,
    info: GraphQLResolveInfo,
  ): Promise<LiveSink> {
    const display = await this.displayOf(token);
    this.options.access.watchDisplay(display.id, context.connection.socket);
    return this.join(
      { kind: 'display', branchId: display.branchId, token, language: context.connection.language },
      context,
      info,
    );
  }

  /** Throws the refusal a client gets for a token that names no ticket. */
  private async checkToken(token: string): Promise<void> {
    if (this.knownTokens.has(token)) return;
    const found = await this.options.runQuery(
      'query LiveTicket($token: String!) { ticketByToken(token: $token) { number } }',
      { token },
      {},
    );
    const error = found.errors?.[0];
    if (error !== undefined) throw new GraphQLError(error.message, { extensions: error.extensions });
    if ((found.data as { ticketByToken: unknown } | undefined)?.ticketByToken == null) {
      throw new NotFoundError('Ticket not found.');
    }
    if (this.knownTokens.size >= KNOWN_TOKENS_MAX) this.knownTokens.clear();
    this.knownTokens.add(token);
  }

  /** The display of a token, or the refusal its page is shown. */
  private async displayOf(token: string): Promise<{ id: number; branchId: number }> {
    const found = await this.options.runQuery(
      'query LiveDisplay($token: String!) { displayBoard(token: $token) { id branchId } }',
      { token },
      {},
    );
    const error = found.errors?.[0];
    if (error !== undefined) throw new GraphQLError(error.message, { extensions: error.extensions });
    const board = (found.data as { displayBoard: { id: string; branchId: string } }).displayBoard;
    return { id: Number(board.id), branchId: Number(board.branchId) };
  }

  /** Identical subscriptions share one plan, as they share one document. */
  private async join(reader: LiveReader, context: LiveContext, info: GraphQLResolveInfo): Promise<LiveSink> {
    // Joined only once every event published from here on reaches the hub.
    await this.options.follow?.();
    const rootField = info.fieldNodes[0];
    if (rootField === undefined) throw new Error('a subscription without its field');
    let plan = this.plans.get(rootField);
    if (plan === undefined) {
      plan = livePlanOf(info.operation, info.fragments, rootField);
      this.plans.set(rootField, plan);
    }
    return this.options.hub.join(
      {
        reader,
        plan,
        rootField: info.fieldName,
        variables: info.variableValues,
        operationName: info.operation.name?.value,
      },
      context.connection.gate ?? liveSocketOf(context.connection.socket),
      context.id,
    );
  }
}

function isErrors(operation: ExecutionArgs | readonly GraphQLError[]): operation is readonly GraphQLError[] {
  return Array.isArray(operation);
}

/** The error with the code Apollo gives the same mistake over HTTP, so clients handle both alike. */
function withCode(error: GraphQLError, code: string, rewrite?: (message: string) => string): GraphQLError {
  return new GraphQLError(rewrite === undefined ? error.message : rewrite(error.message), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code },
  });
}
