import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import { format as formatType, parse as parseType } from 'content-type';
import type { BodyLimit } from './graphql-server';
import type { HttpService } from './http-service';
import { languageOf } from './language';
import type { Logger } from './logger';
import { graphQLBodyRefusalAnswer } from './request-body';

/**
 * A front door for `POST /graphql`, ahead of express: the requests a process's clients send all day
 * are answered here and get exactly what express's way gives them (the same frame, body refusals,
 * Apollo request and answer), without the router, body-parser's negotiation or the integration's
 * copies. Whatever it cannot prove it serves identically (another method or path, a query string, a
 * body encoding or charset, no declared length or one past the limit, or what the process's own
 * `admitsAlso` turns away) it hands to express before reading a byte, so every refusal made there
 * stays made there. The gateway's door (gateway/door/graphql-door.ts) and every subgraph's use it.
 */
export interface GraphqlDoorOptions<TContext extends BaseContext> {
  service: HttpService;
  apollo: ApolloServer<TContext>;
  logger: Logger;
  /** Who failed, in the log line of a request that escaped: "the gateway", "the cv subgraph". */
  serving: string;
  /** The largest body taken, in bytes, and as express's limit names it (for the refusal's text). */
  bodyLimit: BodyLimit;
  /** A further test of the request's head; false hands it to express (and to its refusals). */
  admitsAlso?: (req: IncomingMessage) => boolean;
  /** Begins a request the door admitted, before its body is read. */
  arriving(req: IncomingMessage): DoorArrival<TContext>;
}

/** A request the door admitted, as the process begins it. */
export interface DoorArrival<TContext> {
  /** Apollo's context for it, as express's way builds it. */
  context(): Promise<TContext>;
  /** Answers the request some other way than Apollo's pipeline: true when it did. */
  answer?(body: unknown, res: ServerResponse): Promise<boolean>;
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

export function sendText(res: ServerResponse, status: number, type: string | undefined, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', sentType(type));
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function graphqlDoor<TContext extends BaseContext>(
  options: GraphqlDoorOptions<TContext>,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { service, apollo, logger, bodyLimit } = options;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrival = options.arriving(req);
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
    if (arrival.answer !== undefined && (await arrival.answer(body, res))) return;
    const requestHeaders = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) requestHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const answer = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers: requestHeaders, search: '', body },
      context: () => arrival.context(),
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
    if (options.admitsAlso !== undefined && !options.admitsAlso(req)) return false;
    service.frame(
      req,
      res,
      () => ROUTE,
      ROUTE,
      () =>
        void serve(req, res).catch((error: unknown) => {
          // Express's final handler answers what escapes a route the same way: a bare 500.
          logger.error({ err: error }, `${options.serving} failed a request`);
          if (res.headersSent) res.destroy();
          else sendText(res, 500, 'text/html', 'Internal Server Error');
        }),
    );
    return true;
  };
}
