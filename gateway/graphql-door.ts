import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer } from '@apollo/server';
import { format as formatType, parse as parseType } from 'content-type';
import type { HttpService } from '../common/http-service';
import { languageOf } from '../common/language';
import type { Logger } from '../common/logger';
import { graphQLBodyRefusalAnswer } from '../common/request-body';
import type { GatewayContext } from './header-forwarding.data-source';
import type { PreparedOperations } from './prepared-operations';
import type { GatewayRateLimits } from './rate-limit';

/**
 * The gateway's front door for `POST /graphql`: the requests its clients send all day are answered
 * here, before express, and get exactly what express's way gives them (the same frame, count,
 * body refusals, Apollo request and answer), without the router, body-parser's negotiation or the
 * integration's copies, which were a tenth of the gateway's CPU per request
 * (docs/design/gateway-fast-path.md). Whatever it cannot prove it serves identically (another
 * method or path, a query string, a body encoding or charset, no declared length or one past the
 * limit) it hands to express before reading a byte, so every refusal made there stays made there.
 */
export interface GraphqlDoorOptions {
  service: HttpService;
  apollo: ApolloServer<GatewayContext>;
  limits: GatewayRateLimits;
  logger: Logger;
  /** The headers of a request the subgraphs are given. */
  forwardedHeaders(req: IncomingMessage): GatewayContext['headers'];
  /** Apollo's context for a request, as express's way builds it. */
  context(
    headers: GatewayContext['headers'],
    address: string | undefined,
    client: GatewayContext['client'],
  ): Promise<GatewayContext>;
  /** The largest body taken, in bytes, and as express's limit names it (for the refusal's text). */
  bodyLimit: { bytes: number; named: string };
  /** Operations run again without Apollo's request pipeline; absent, Apollo takes every request. */
  prepared?: PreparedOperations;
}

const ROUTE = '/graphql';
/** `Content-Type`s admitted: what POS systems, the adapter and GraphQL clients send. */
const JSON_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);

/** Whether the door serves `req` exactly as express would; decided from its head alone. */
export function admits(req: IncomingMessage, limitBytes: number): boolean {
  if (req.method !== 'POST' || req.url !== ROUTE) return false;
  const headers = req.headers;
  const type = headers['content-type'];
  if (type === undefined || !JSON_TYPES.has(type.toLowerCase())) return false;
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
  const length = headers['content-length'];
  if (length === undefined || !/^\d{1,10}$/.test(length)) return false;
  return Number(length) <= limitBytes;
}

/** body-parser's JSON error, so the refusal reads as express's way writes it. */
class BodyRefused extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
  ) {
    super(type);
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new BodyRefused(400, 'request.aborted'));
    });
  });
}

/** JSON's whitespace: what body-parser's strict check skips before the first character. */
const BLANK = new Set([' ', '\t', '\n', '\r']);
const JSON_START = new Set(['{', '[']);

function firstNonBlank(text: string): string | undefined {
  for (const char of text) if (!BLANK.has(char)) return char;
  return undefined;
}

/** body-parser's `json()` in strict mode: a BOM dropped, empty is `{}`, else an object or array. */
export function parseJsonBody(body: Buffer): unknown {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  const first = firstNonBlank(text);
  if (first === undefined || !JSON_START.has(first)) throw new BodyRefused(400, 'entity.parse.failed');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyRefused(400, 'entity.parse.failed');
  }
}

/** Express's `res.send` of a string: a charset on the type it was given, HTML if none. */
const typeWithCharset = new Map<string, string>();
function sentType(type: string | undefined): string {
  if (type === undefined) return 'text/html; charset=utf-8';
  let sent = typeWithCharset.get(type);
  if (sent === undefined) {
    const parsed = parseType(type);
    parsed.parameters.charset = 'utf-8';
    sent = formatType(parsed);
    // Apollo answers with a handful of types; a bound keeps a surprise from growing the map.
    if (typeWithCharset.size < 32) typeWithCharset.set(type, sent);
  }
  return sent;
}

function sendText(res: ServerResponse, status: number, type: string | undefined, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', sentType(type));
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** Layer B's run of a matched request: true when it answered, false when Apollo is to. */
async function answerPrepared(
  prepared: PreparedOperations,
  matched: NonNullable<ReturnType<PreparedOperations['match']>>,
  context: GatewayContext,
  res: ServerResponse,
): Promise<boolean> {
  const outcome = await prepared.run(matched, context);
  if (outcome.kind !== 'answered') return false;
  for (const [name, value] of Object.entries(outcome.answer.headers)) res.setHeader(name, value);
  sendText(res, 200, outcome.answer.headers['content-type'], outcome.answer.body);
  return true;
}

export function graphqlDoor(
  options: GraphqlDoorOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { service, apollo, limits, logger, bodyLimit } = options;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = options.forwardedHeaders(req);
    const address = service.clientAddress(req);
    const rawCredential = req.headers['x-internal-credential'];
    const client = limits.arriving(
      Array.isArray(rawCredential) ? rawCredential.join(', ') : rawCredential,
      headers,
      address,
    );
    let body: unknown;
    try {
      body = parseJsonBody(await readBody(req));
    } catch (error) {
      if (!(error instanceof BodyRefused)) throw error;
      if (error.type === 'request.aborted') return;
      const answer = graphQLBodyRefusalAnswer(
        error.status,
        error.type,
        languageOf(req.headers['accept-language']),
        bodyLimit.named,
      );
      sendText(res, error.status, 'application/json; charset=utf-8', JSON.stringify(answer));
      return;
    }
    const matched = options.prepared?.match(body, req.headers);
    let context: GatewayContext | undefined;
    if (matched !== undefined) {
      context = await options.context({ ...headers }, address, client);
      if (await answerPrepared(options.prepared!, matched, context, res)) return;
    }
    const requestHeaders = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) requestHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const answer = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers: requestHeaders, search: '', body },
      // A request layer B handed over keeps the context it was given (and any result it holds).
      context:
        context === undefined
          ? () => options.context({ ...headers }, address, client)
          : () => Promise.resolve(context),
    });
    for (const [name, value] of answer.headers) res.setHeader(name, value);
    const status = answer.status ?? 200;
    if (answer.body.kind === 'complete') {
      sendText(res, status, answer.headers.get('content-type'), answer.body.string);
      return;
    }
    res.statusCode = status;
    for await (const chunk of answer.body.asyncIterator) res.write(chunk);
    res.end();
  }

  return (req, res) => {
    if (!admits(req, bodyLimit.bytes)) return false;
    service.frame(
      req,
      res,
      () => ROUTE,
      ROUTE,
      () =>
        void serve(req, res).catch((error: unknown) => {
          // Express's final handler answers what escapes a route the same way: a bare 500.
          logger.error({ err: error }, 'the gateway failed a request');
          if (res.headersSent) res.destroy();
          else sendText(res, 500, 'text/html', 'Internal Server Error');
        }),
    );
    return true;
  };
}
