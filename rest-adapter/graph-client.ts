import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { GraphQLFormattedError } from 'graphql';
import { holdsOnlyQueries, requestKey, type InflightJoin } from '../common/inflight-join';
import { internalCredentialHeaders } from '../common/internal-credential';
import { JsonHttpClient, type JsonHttpAnswer } from '../common/json-http';
import { MESSAGE_IDS_HEADER, REQUEST_ID_HEADER } from '../common/request-context';
import { readAuthorization } from '../contracts/authorization';
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
 * bounds on depth, aliases, tokens, directives and cost (gateway/limits/query-limits.ts).
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

/**
 * An operation's request bodies, less their variables: as an automatic persisted query (the
 * document's SHA-256 alone) and with the document, which registers it. Built once per operation,
 * so a request serialises only its variables.
 */
interface PreparedBodies {
  byHash: string;
  withDocument: string;
  /** Whether the document holds only queries: only those may join an identical one in flight. */
  read: boolean;
}

function prepare(op: { name: string; document: string }): PreparedBodies {
  const extensions = JSON.stringify({
    persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(op.document).digest('hex') },
  });
  const head = `"operationName":${JSON.stringify(op.name)},"extensions":${extensions},"variables":`;
  const read = holdsOnlyQueries(op.document);
  return { byHash: `{${head}`, withDocument: `{"query":${JSON.stringify(op.document)},${head}`, read };
}

/** Headers that only say which caller's request a call is: they stay out of the join key. */
const CALLER_HEADERS: ReadonlySet<string> = new Set([REQUEST_ID_HEADER]);

/** What the gateway answers when it does not hold a hash's document (yet, or any more). */
function isUnknownHash(body: { errors?: readonly GraphQLFormattedError[] }): boolean {
  return body.errors?.length === 1 && body.errors[0]?.extensions?.code === 'PERSISTED_QUERY_NOT_FOUND';
}

export class GraphClient {
  private readonly http: JsonHttpClient;
  private readonly platformHeaders: Record<string, string>;
  private readonly prepared = new Map<string, PreparedBodies>();

  /**
   * Every route counts its request against the caller's budget before it runs, so each operation
   * it sends carries the platform's credential: the gateway does not count it a second time.
   * Given `reads`, a query joins an identical call to the gateway in flight instead of being sent
   * (the gateway's rule for its own subgraph fetches, common/inflight-join.ts).
   */
  constructor(
    gatewayUrl: string,
    timeoutMs: number,
    internalSecret: string,
    private readonly reads?: InflightJoin<JsonHttpAnswer>,
  ) {
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
    /** The client's request, whose headers the gateway is passed: express's, or a front door's. */
    req: Pick<IncomingMessage, 'headers'>,
    overrides: Record<string, string> = {},
  ): Promise<TData> {
    const headers: Record<string, string> = { ...this.platformHeaders };
    for (const name of PASSED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    // One spelling per credential, so identical reads of one key join whatever each client sent.
    const reading = readAuthorization(headers.authorization);
    if (reading.kind === 'bearer') headers.authorization = reading.header;
    Object.assign(headers, overrides);
    let bodies = this.prepared.get(op.document);
    if (bodies === undefined) {
      bodies = prepare(op);
      this.prepared.set(op.document, bodies);
    }
    const tail = `${JSON.stringify(variables)}}`;
    // The gateway then neither reads nor hashes the document: it holds each parsed and validated
    // document by its hash already. Once per gateway process (and after its cache dropped the
    // hash) the first answer is PERSISTED_QUERY_NOT_FOUND and the document follows.
    let { status, body } = await this.send<TData>(bodies.byHash + tail, headers, bodies.read);
    if (isUnknownHash(body)) {
      ({ status, body } = await this.send<TData>(bodies.withDocument + tail, headers, bodies.read));
    }
    if (body.errors !== undefined && body.errors.length > 0) throw new GraphOperationError(body.errors);
    if (body.data === undefined || body.data === null) {
      throw new GatewayUnavailableError(`gateway answered ${status} without data`);
    }
    return body.data;
  }

  private async send<TData>(
    payload: string,
    headers: Record<string, string>,
    read: boolean,
  ): Promise<{ status: number; body: { data?: TData | null; errors?: GraphQLFormattedError[] } }> {
    let answer: JsonHttpAnswer;
    try {
      // Each caller parses the shared answer's text itself, so no two hold one object.
      answer =
        read && this.reads !== undefined
          ? await this.reads.join(
              requestKey([payload], headers, CALLER_HEADERS),
              () => this.http.post(payload, headers),
              () => undefined,
            ).value
          : await this.http.post(payload, headers);
    } catch (error) {
      throw new GatewayUnavailableError(`gateway at ${this.http.upstreamUrl}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    try {
      return {
        status: answer.status,
        body: JSON.parse(answer.text) as { data?: TData | null; errors?: GraphQLFormattedError[] },
      };
    } catch (error) {
      throw new GatewayUnavailableError(`gateway answered ${answer.status} without JSON`, { cause: error });
    }
  }
}
