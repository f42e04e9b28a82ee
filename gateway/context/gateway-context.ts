import type { FormattedExecutionResult } from 'graphql';
import type { RateDecision } from '../../common/rate-budget';

/** Lets a query that ran ahead go: called once its own count has settled, whatever it said. */
export type RunAheadTicket = () => void;

/** What every operation the gateway plans carries: the client's headers and who the client is. */
export interface GatewayContext {
  headers: Record<string, string | undefined>;
  /**
   * The request carried the platform's credential: one of the REST adapter's operations, whose
   * names are fixed in its code (gateway/observe/gateway-metrics.ts keeps each as a label value).
   */
  platform?: boolean;
  /**
   * Present when the operation comes from a client through this gateway's own door (HTTP or
   * graphql-ws) and counts against its budgets; absent for the platform's own operations.
   */
  client?: {
    address: string | undefined;
    /** The count of an HTTP request, started as it arrived; graphql-ws counts before it parses. */
    counting?: Promise<RateDecision[]>;
    /**
     * A ticket for a query to be sent to its subgraphs before `counting` settles, when the
     * credential's last count left room (gateway/limits/run-ahead.ts); undefined when it must wait.
     */
    runAhead?: () => RunAheadTicket | undefined;
  };
}

/**
 * Runs an operation through the gateway with the given headers, as an HTTP request would.
 * `recheck` asks the subgraphs to answer who the credential is from their databases, not their caches.
 */
export type RunQuery = (
  query: string,
  variables: Record<string, unknown>,
  headers: GatewayContext['headers'],
  client?: GatewayContext['client'],
  options?: { recheck?: boolean },
) => Promise<FormattedExecutionResult>;
