import type { ApolloServerPlugin } from '@apollo/server';
import { HeaderMap } from '@apollo/server';
import type { RequestHandler } from 'express';
import { GraphQLError, OperationTypeNode, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { internalCredentialCheck } from '../../common/internal-credential';
import { languageOf, type TextLanguage } from '../../common/language';
import type { Logger } from '../../common/logger';
import { say, text } from '../../common/messages';
import type { ErrorMessages } from '../../common/errors';
import {
  addressIdentity,
  CredentialBudgets,
  laterDecisions,
  rateLimitHeaders,
  refusalMessage,
  refusalOf,
  type KnownCredentials,
  type RateBudgets,
  type RateDecision,
  type ratePolicies,
} from '../../common/rate-budget';
import { readAuthorization } from '../../contracts/authorization';
import { identityFromAnswer, identityQueryOf, presentedCredentials } from '../../contracts/credentials';
import type { GatewayContext } from '../fetch/header-forwarding.data-source';
import type { RunQuery } from '../live/live-hub';
import { workUnitsOf } from './query-limits';
import { RunAhead } from './run-ahead';

/** Marks a request the REST adapter already counted; the Apollo context then carries no client. */
const COUNTED_BY_THE_PLATFORM = 'countedByThePlatform';
/** The count of a client's HTTP request, under way while the request is read. */
const COUNTING = 'rateLimitCounting';

export interface GatewayRateLimitOptions {
  budgets: RateBudgets;
  policies: ReturnType<typeof ratePolicies>;
  credentials: KnownCredentials;
  runQuery: RunQuery;
  /** The platform's credential as this process accepts it (the primary, and a secondary mid-rotation). */
  acceptedInternalSecrets: readonly string[];
  logger: Logger;
  /** Told of every refusal, by door and the decision that refused (the metrics count them). */
  refused?: (door: 'graphql' | 'live', decision: RateDecision) => void;
}

/** The refusal of an operation on the graph: RATE_LIMITED with retryAfter, answered as HTTP 429. */
export function rateLimitedError(decisions: readonly RateDecision[], language: TextLanguage): GraphQLError {
  const refused = refusalOf(decisions);
  if (refused === undefined) throw new Error('no refusal among the decisions');
  const headers = rateLimitHeaders(decisions);
  return new GraphQLError(refusalMessage(refused, language), {
    extensions: {
      code: 'RATE_LIMITED',
      retryAfter: Number(headers['Retry-After']),
      // Apollo takes the status and headers from here and drops `http` from the answer.
      http: {
        status: 429,
        headers: new HeaderMap(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      },
    },
  });
}

/** A request with neither a bearer credential nor an API key: its mutations are page writes. */
export function sentWithoutCredential(headers: GatewayContext['headers']): boolean {
  return !headers.authorization && !headers['x-api-key']?.trim();
}

/**
 * Whether a client's Authorization header is no Bearer credential. The doors pass a readable one on
 * in its one spelling (`canonicalHeaders`); one that does not parse is refused as UNAUTHENTICATED
 * once its client address has been counted, never taken as a credential of its own.
 */
export function presentsMalformedAuthorization(headers: GatewayContext['headers']): boolean {
  return readAuthorization(headers.authorization).kind === 'malformed';
}

/**
 * The client's credential headers as every part of the gateway reads them: a Bearer credential in
 * its one spelling (so the sessions' look-ups, the shared fetches and the live sockets' checks key on
 * the credential, not on how it was spelt), an API key without surrounding whitespace.
 */
export function canonicalHeaders(headers: GatewayContext['headers']): GatewayContext['headers'] {
  const reading = readAuthorization(headers.authorization);
  if (reading.kind === 'bearer') headers.authorization = reading.header;
  else if (reading.kind === 'none') delete headers.authorization;
  const apiKey = headers['x-api-key']?.trim();
  if (apiKey) headers['x-api-key'] = apiKey;
  else delete headers['x-api-key'];
  return headers;
}

/** The refusal of an Authorization header that is no Bearer credential: 401, in the asked language. */
export function malformedAuthorizationError(language: TextLanguage): GraphQLError {
  return new GraphQLError(text('auth.malformed', language), {
    extensions: {
      code: 'UNAUTHENTICATED',
      messages: { message: [say('auth.malformed')] } satisfies ErrorMessages,
      http: { status: 401 },
    },
  });
}

/**
 * The gateway's side of the platform's budgets (common/rate-budget.ts): every client operation,
 * over HTTP or graphql-ws, is counted against the budget of the credential it carries, in the very
 * Redis counter the REST adapter uses, so changing door lifts no limit, and once per root field, so
 * aliases multiply no budget. A request the adapter sends carries the platform's credential: the
 * adapter counted it already, and it is not counted twice.
 */
export class GatewayRateLimits {
  private readonly isPlatform: (presented: string | undefined) => boolean;
  private readonly runAhead = new RunAhead();
  private readonly counts: CredentialBudgets;
  private readonly decided = new WeakMap<GatewayContext, Promise<RateDecision[]>>();

  constructor(private readonly options: GatewayRateLimitOptions) {
    this.isPlatform = internalCredentialCheck(options.acceptedInternalSecrets);
    this.counts = new CredentialBudgets(
      options.budgets,
      options.credentials,
      options.policies,
      (kind, credential) => this.lookup({ kind, credential }),
    );
  }

  /** An access announcement was heard: who a revoked credential was is asked of the graph again. */
  accessChanged(): void {
    this.options.credentials.forgetKept();
  }

  /** Reports a refusal made with this door's decisions elsewhere (the live server's admission). */
  reportRefusal(door: 'graphql' | 'live', decision: RateDecision): void {
    this.options.refused?.(door, decision);
  }

  /** Asks the graph who a credential is; null when it refuses it, a throw when it cannot tell. */
  private async lookup(presented: Parameters<typeof identityQueryOf>[0]): Promise<string | null> {
    const { query, headers } = identityQueryOf(presented);
    // The gateway's runQuery turns a session into its person, as for any operation.
    return identityFromAnswer(presented, await this.options.runQuery(query.document, {}, headers));
  }

  /**
   * Counts `units` of a client operation's work against the budget of each credential it carries,
   * or of its client address when it carries none the graph knows (common/rate-budget.ts).
   */
  take(headers: GatewayContext['headers'], address: string | undefined, units = 1): Promise<RateDecision[]> {
    return this.counts.take(presentedCredentials(headers).credentials, address, units);
  }

  /**
   * For a graphql-ws `connection_init` whose credential the gateway is about to check with the
   * graph: the client address counted when that credential is not known as valid, so inventing
   * credentials on sockets costs what it costs over HTTP.
   */
  takeUnknown(headers: GatewayContext['headers'], address: string | undefined): Promise<RateDecision[]> {
    return this.counts.takeUnknown(presentedCredentials(headers).credentials, address);
  }

  /**
   * HTTP `/graphql`: starts counting the request as it arrives and lets it go on meanwhile; the
   * plugin below awaits the count once the operation is known and refuses it there, before it is
   * planned, so the Redis round trip overlaps reading and validating the request instead of
   * preceding it. Nothing is counted for the platform's own requests.
   */
  httpMiddleware(
    headersOf: (req: Parameters<RequestHandler>[0]) => GatewayContext['headers'],
  ): RequestHandler {
    return (req, res, next) => {
      if (req.method === 'OPTIONS') {
        next();
        return;
      }
      if (this.isPlatform(req.get('x-internal-credential'))) {
        res.locals[COUNTED_BY_THE_PLATFORM] = true;
        next();
        return;
      }
      res.locals[COUNTING] = this.counting(headersOf(req), req.ip);
      next();
    };
  }

  /**
   * The client of a request the gateway's front door admitted (gateway/graphql-door.ts), its count
   * started as `httpMiddleware` starts it, and what it may run ahead of that count
   * (gateway/run-ahead.ts); none for the platform's own.
   */
  arriving(
    internalCredential: string | undefined,
    headers: GatewayContext['headers'],
    address: string | undefined,
  ): GatewayContext['client'] {
    if (this.isPlatform(internalCredential)) return undefined;
    // What the count is kept under: the credentials a request carries, or its address without any.
    const carried = presentedCredentials(headers).credentials;
    const credential =
      carried.length === 0
        ? `address ${address ?? ''}`
        : carried.map(({ kind, credential }) => `${kind} ${credential}`).join('\n');
    const settled = this.runAhead.counting(credential);
    return {
      address,
      counting: this.counting(headers, address).then((decisions) => {
        settled(decisions);
        return decisions;
      }),
      runAhead: () => this.runAhead.take(credential),
    };
  }

  private counting(
    headers: GatewayContext['headers'],
    address: string | undefined,
    units = 1,
  ): Promise<RateDecision[]> {
    return this.take(headers, address, units).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not count a request; letting it through');
      return [];
    });
  }

  /** The client of an HTTP request, with its count under way; none for the platform's own. */
  static clientOf(req: { ip?: string }, locals: Record<string, unknown>): GatewayContext['client'] {
    if (locals[COUNTED_BY_THE_PLATFORM] === true) return undefined;
    return { address: req.ip, counting: locals[COUNTING] as Promise<RateDecision[]> | undefined };
  }

  /**
   * A client operation's decisions once it is resolved: its count as it arrived (one unit, or none
   * over graphql-ws, whose admission counted one), and one more unit for each root field past the
   * first, against the same budgets. The page's writes have their own tighter budget per client
   * address (PUBLIC_WRITE_RATE_LIMIT): a mutation sent without any credential is such a write, whichever
   * door it comes through, and counts there once per root field too.
   */
  decisionsOf(
    context: GatewayContext,
    document: DocumentNode,
    operation: OperationDefinitionNode,
  ): Promise<RateDecision[]> {
    // A request the front door ran and then handed to Apollo (prepared-operations.ts) is decided once.
    let decided = this.decided.get(context);
    if (decided === undefined) {
      decided = this.decide(context, document, operation);
      this.decided.set(context, decided);
    }
    return decided;
  }

  private async decide(
    { client, headers }: GatewayContext,
    document: DocumentNode,
    operation: OperationDefinitionNode,
  ): Promise<RateDecision[]> {
    if (client === undefined) return [];
    let decisions = [...((await client.counting) ?? [])];
    if (refusalOf(decisions) !== undefined) return decisions;
    const units = workUnitsOf(document, operation);
    if (units > 1) {
      decisions = laterDecisions(decisions, await this.counting(headers, client.address, units - 1));
    }
    if (sentWithoutCredential(headers) && operation.operation === OperationTypeNode.MUTATION) {
      const { budgets, policies } = this.options;
      decisions.push(await budgets.take(policies.publicWrites, addressIdentity(client.address), units));
    }
    return decisions;
  }

  /**
   * Applies a client operation's count before it is planned: the RateLimit headers on the answer,
   * 429 past the quota, and 401 for an Authorization header that is no Bearer credential (its
   * address counted all the same).
   */
  plugin(): ApolloServerPlugin<GatewayContext> {
    return {
      requestDidStart: () =>
        Promise.resolve({
          didResolveOperation: async ({ document, operation, contextValue, response }) => {
            if (contextValue.client === undefined || operation === undefined) return;
            const decisions = await this.decisionsOf(contextValue, document, operation);
            const language = languageOf(contextValue.headers['accept-language']);
            const refused = refusalOf(decisions);
            if (refused !== undefined) {
              this.options.refused?.('graphql', refused);
              throw rateLimitedError(decisions, language);
            }
            for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) {
              response.http.headers.set(name.toLowerCase(), value);
            }
            if (presentsMalformedAuthorization(contextValue.headers))
              throw malformedAuthorizationError(language);
          },
        }),
    };
  }
}
