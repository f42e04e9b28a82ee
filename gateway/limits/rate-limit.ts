import { HeaderMap } from '@apollo/server';
import { GraphQLError, OperationTypeNode, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { internalCredentialCheck } from '../../common/internal-credential';
import type { TextLanguage } from '../../common/language';
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
import { identityFromAnswer, identityQueryOf, presentedCredentials } from '../../contracts/credentials';
import { sentWithoutCredential, type GatewayContext, type RunQuery } from '../context';
import { workUnitsOf } from './query-limits';
import { replaysOfflineWork } from './sync-operations';

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
 *
 * It counts and decides; each way in applies it on its own: the Apollo plugin
 * (rate-limit.plugin.ts), the HTTP door's count as a request arrives (door/arrival-count.ts) and
 * the live server's admission (live/live-admission.ts).
 */
export class GatewayRateLimits {
  /** Whether a request presents the platform's credential (the adapter's, counted already). */
  readonly isPlatform: (presented: string | undefined) => boolean;
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

  /** `take` for a request that goes on meanwhile: a count that fails lets it through, with a warning. */
  counting(
    headers: GatewayContext['headers'],
    address: string | undefined,
    units = 1,
  ): Promise<RateDecision[]> {
    return this.take(headers, address, units).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not count a request; letting it through');
      return [];
    });
  }

  /**
   * A client operation's decisions once it is resolved: its count as it arrived (one unit, or none
   * over graphql-ws, whose admission counted one), and one more unit for each root field past the
   * first, against the same budgets. A board device replaying its offline work (replaysOfflineWork)
   * counts against its sync allowance instead while that has room. The page's writes have their own tighter budget per client
   * address (PUBLIC_WRITE_RATE_LIMIT): a mutation sent without any credential is such a write, whichever
   * door it comes through, and counts there once per root field too.
   */
  decisionsOf(
    context: GatewayContext,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables?: Readonly<Record<string, unknown>>,
  ): Promise<RateDecision[]> {
    // A request the front door ran and then handed to Apollo (fetch/prepared-operations.ts) is decided once.
    let decided = this.decided.get(context);
    if (decided === undefined) {
      decided = this.decide(context, document, operation, variables);
      this.decided.set(context, decided);
    }
    return decided;
  }

  private async decide(
    { client, headers }: GatewayContext,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | undefined,
  ): Promise<RateDecision[]> {
    if (client === undefined) return [];
    let decisions = [...((await client.counting) ?? [])];
    const units = workUnitsOf(document, operation);
    if (replaysOfflineWork(document, operation, variables)) {
      // A board's catch-up after an outage: its sync allowance, if it is one and has room.
      const synced = await this.counts.takeSync(presentedCredentials(headers).credentials, decisions, units);
      if (synced !== undefined) return synced;
    }
    if (refusalOf(decisions) !== undefined) return decisions;
    if (units > 1) {
      decisions = laterDecisions(decisions, await this.counting(headers, client.address, units - 1));
    }
    if (sentWithoutCredential(headers) && operation.operation === OperationTypeNode.MUTATION) {
      const { budgets, policies } = this.options;
      decisions.push(await budgets.take(policies.publicWrites, addressIdentity(client.address), units));
    }
    return decisions;
  }
}
