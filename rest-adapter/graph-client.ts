import type { Request } from 'express';
import type { GraphQLFormattedError } from 'graphql';
import { internalCredentialHeaders } from '../common/internal-credential';
import { JsonHttpClient, type JsonHttpAnswer } from '../common/json-http';
import { MESSAGE_IDS_HEADER, REQUEST_ID_HEADER } from '../common/request-context';
import { REST_DOOR_HEADER } from '../contracts/tickets/board-device';

/** Headers of the caller that the graph needs: credentials, language and the request id. */
const PASSED_HEADERS = ['authorization', 'x-api-key', 'accept-language', REQUEST_ID_HEADER] as const;

/** The graph answered, with errors: the adapter maps them to a status in one place. */
export class GraphOperationError extends Error {
  constructor(readonly errors: readonly GraphQLFormattedError[]) {
    super(errors.map((e) => e.message).join('; '));
    this.name = 'GraphOperationError';
  }
}

/** The gateway could not be reached or answered something that is not GraphQL. */
export class GatewayUnavailableError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'GatewayUnavailableError';
  }
}

export interface GraphOperation<TData, TVariables extends Record<string, unknown> = Record<string, never>> {
  name: string;
  document: string;
  /** Only for typing: the shape of `data` and of the variables. */
  readonly __types?: { data: TData; variables: TVariables };
}

/**
 * Every operation the adapter can send, as declared: a test holds each within the gateway's
 * bounds on depth, aliases, tokens, directives and cost (gateway/query-limits.ts).
 */
export const ADAPTER_OPERATIONS: { name: string; document: string }[] = [];

/** Declares one of the adapter's fixed operations; each REST route maps to exactly one. */
export function operation<TData, TVariables extends Record<string, unknown> = Record<string, never>>(
  name: string,
  document: string,
): GraphOperation<TData, TVariables> {
  const declared = { name, document };
  ADAPTER_OPERATIONS.push(declared);
  return declared;
}

export class GraphClient {
  private readonly http: JsonHttpClient;
  private readonly platformHeaders: Record<string, string>;

  /**
   * Every route counts its request against the caller's budget before it runs, so each operation
   * it sends carries the platform's credential: the gateway does not count it a second time.
   */
  constructor(gatewayUrl: string, timeoutMs: number, internalSecret: string) {
    this.http = new JsonHttpClient(gatewayUrl, timeoutMs);
    // The adapter renders errors in its document's language, so it asks for their message ids; and
    // says it is the REST door, which a board device's key does not open.
    this.platformHeaders = {
      ...internalCredentialHeaders(internalSecret),
      [MESSAGE_IDS_HEADER]: '1',
      [REST_DOOR_HEADER]: '1',
    };
  }

  close(): void {
    this.http.close();
  }

  async execute<TData, TVariables extends Record<string, unknown>>(
    op: GraphOperation<TData, TVariables>,
    variables: TVariables,
    req: Request,
    overrides: Record<string, string> = {},
  ): Promise<TData> {
    const headers: Record<string, string> = { ...this.platformHeaders };
    for (const name of PASSED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    Object.assign(headers, overrides);
    let answer: JsonHttpAnswer;
    try {
      answer = await this.http.post(
        JSON.stringify({ query: op.document, operationName: op.name, variables }),
        headers,
      );
    } catch (error) {
      throw new GatewayUnavailableError(`gateway at ${this.http.upstreamUrl}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    let body: { data?: TData | null; errors?: GraphQLFormattedError[] };
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch (error) {
      throw new GatewayUnavailableError(`gateway answered ${answer.status} without JSON`, { cause: error });
    }
    if (body.errors !== undefined && body.errors.length > 0) throw new GraphOperationError(body.errors);
    if (body.data === undefined || body.data === null) {
      throw new GatewayUnavailableError(`gateway answered ${answer.status} without data`);
    }
    return body.data;
  }
}
