import type { ApolloServerPlugin } from '@apollo/server';
import { HeaderMap } from '@apollo/server';
import type { RequestHandler } from 'express';
import { GraphQLError, OperationTypeNode } from 'graphql';
import { internalCredentialCheck } from '../common/internal-credential';
import { languageOf, type TextLanguage } from '../common/language';
import type { Logger } from '../common/logger';
import {
  addressIdentity,
  personIdentity,
  rateLimitHeaders,
  refusalMessage,
  refusalOf,
  ticketKeyIdentity,
  type CredentialKind,
  type KnownCredentials,
  type RateBudgets,
  type RateDecision,
  type RatePolicy,
  type ratePolicies,
} from '../common/rate-budget';
import { sessionTokenOf } from '../contracts/identity/session';
import { isBoardKey } from '../contracts/tickets/board-device';
import type { GatewayContext } from './header-forwarding.data-source';
import type { RunQuery } from './live/live-hub';
import { RunAhead } from './run-ahead';

/** The budget each kind of credential counts against. */
const POLICY_OF = {
  tickets: 'tickets',
  board: 'boards',
  cv: 'cv',
  session: 'people',
} as const satisfies Record<CredentialKind, keyof ReturnType<typeof ratePolicies>>;

/** What an Authorization header carries: a session, a paired board device's key, or a branch key. */
function ticketCredentialKind(authorization: string): CredentialKind {
  if (sessionTokenOf(authorization) !== undefined) return 'session';
  return isBoardKey(authorization) ? 'board' : 'tickets';
}

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
 * The gateway's side of the platform's budgets (common/rate-budget.ts): every client operation,
 * over HTTP or graphql-ws, is counted against the budget of the credential it carries, in the very
 * Redis counter the REST adapter uses, so changing door lifts no limit. A request the adapter sends
 * carries the platform's credential: the adapter counted it already, and it is not counted twice.
 */
export class GatewayRateLimits {
  private readonly isPlatform: (presented: string | undefined) => boolean;
  private readonly runAhead = new RunAhead();

  constructor(private readonly options: GatewayRateLimitOptions) {
    this.isPlatform = internalCredentialCheck(options.acceptedInternalSecrets);
  }

  /** Reports a refusal made with this door's decisions elsewhere (the live server's admission). */
  reportRefusal(door: 'graphql' | 'live', decision: RateDecision): void {
    this.options.refused?.(door, decision);
  }

  /** The credentials a request carries, by kind. */
  private static credentialsOf(headers: GatewayContext['headers']): [CredentialKind, string][] {
    const found: [CredentialKind, string][] = [];
    const { authorization } = headers;
    if (authorization) found.push([ticketCredentialKind(authorization), authorization]);
    const apiKey = headers['x-api-key']?.trim();
    if (apiKey) found.push(['cv', apiKey]);
    return found;
  }

  /** Asks the graph who a credential is; null when it refuses it, a throw when it cannot tell. */
  private async lookup(kind: CredentialKind, credential: string): Promise<string | null> {
    if (kind === 'session') {
      // The gateway's runQuery turns the session into its person, as for any operation.
      const answer = await this.options.runQuery(
        'query RateLimitPerson { viewer { id } }',
        {},
        { authorization: credential },
      );
      const viewer = (answer.data as { viewer?: { id?: string } | null } | null | undefined)?.viewer;
      if (viewer === null) return null;
      if (viewer?.id !== undefined) return personIdentity(viewer.id);
      throw new Error(`could not tell whose session it is: ${answer.errors?.[0]?.message ?? 'no answer'}`);
    }
    const answer =
      kind !== 'cv'
        ? await this.options.runQuery(
            'query RateLimitKey { currentBranch { id } }',
            {},
            { authorization: credential },
          )
        : await this.options.runQuery(
            'query RateLimitAccount { me { id } }',
            {},
            { 'x-api-key': credential },
          );
    const code = answer.errors?.[0]?.extensions?.code;
    if (code === 'UNAUTHENTICATED') return null;
    if (kind !== 'cv') {
      // A known key without tickets:read or without API access is still that key.
      if (code === undefined || code === 'FORBIDDEN' || code === 'PAYMENT_REQUIRED')
        return ticketKeyIdentity(credential);
    } else {
      const id = (answer.data as { me?: { id?: string } } | null | undefined)?.me?.id;
      if (id !== undefined) return `account:${id}`;
    }
    throw new Error(
      `could not tell who a ${kind} credential is: ${answer.errors?.[0]?.message ?? 'no answer'}`,
    );
  }

  /**
   * Counts one client operation against the budget of each credential it carries, or of its client
   * address when it carries none the graph knows. A credential not seen lately is looked up only
   * after the address has been counted, so inventing credentials costs what anonymous requests do.
   */
  async take(headers: GatewayContext['headers'], address: string | undefined): Promise<RateDecision[]> {
    const { budgets, policies, credentials } = this.options;
    const byAddress = { policy: policies.public, who: addressIdentity(address) };
    const decisions: RateDecision[] = [];
    const counted: { policy: RatePolicy; who: string }[] = [];
    for (const [kind, credential] of GatewayRateLimits.credentialsOf(headers)) {
      let who = await credentials.recall(kind, credential);
      if (who === undefined) {
        if (decisions.length === 0) {
          decisions.push(await budgets.take(byAddress.policy, byAddress.who));
          if (refusalOf(decisions) !== undefined) return decisions;
        }
        who = await credentials.of(kind, credential, () => this.lookup(kind, credential));
      }
      if (who !== null) counted.push({ policy: policies[POLICY_OF[kind]], who });
    }
    if (counted.length === 0 && decisions.length === 0) counted.push(byAddress);
    return [...decisions, ...(await budgets.takeAll(counted))];
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
    const carried = GatewayRateLimits.credentialsOf(headers);
    const credential =
      carried.length === 0
        ? `address ${address ?? ''}`
        : carried.map(([kind, value]) => `${kind} ${value}`).join('\n');
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

  private counting(headers: GatewayContext['headers'], address: string | undefined): Promise<RateDecision[]> {
    return this.take(headers, address).catch((error: unknown) => {
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
   * Applies a client operation's count before it is planned: the RateLimit headers on the answer,
   * and 429 past the quota. The page's writes have their own tighter budget per client address
   * (PUBLIC_WRITE_RATE_LIMIT): a mutation sent without any credential is such a write, whichever
   * door it comes through.
   */
  plugin(): ApolloServerPlugin<GatewayContext> {
    const { budgets, policies } = this.options;
    return {
      requestDidStart: () =>
        Promise.resolve({
          didResolveOperation: async ({ operation, contextValue, response }) => {
            const { client, headers } = contextValue;
            if (client === undefined) return;
            const decisions = [...((await client.counting) ?? [])];
            if (sentWithoutCredential(headers) && operation?.operation === OperationTypeNode.MUTATION) {
              decisions.push(await budgets.take(policies.publicWrites, addressIdentity(client.address)));
            }
            const refused = refusalOf(decisions);
            if (refused !== undefined) {
              this.options.refused?.('graphql', refused);
              throw rateLimitedError(decisions, languageOf(headers['accept-language']));
            }
            for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) {
              response.http.headers.set(name.toLowerCase(), value);
            }
          },
        }),
    };
  }
}
