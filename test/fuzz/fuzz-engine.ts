import { readFile } from 'node:fs/promises';
import { Supergraph } from '@apollo/federation-internals';
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import type { Client } from 'pg';
import WebSocket from 'ws';
import { ERROR_CODES } from '../../common/errors';
import { HEADER_LIMITS } from '../../common/http-service';
import { SUPERGRAPH_FILE } from '../../common/paths';
import { graphCases, graphRequest, type GraphCase, type GraphPoolOf } from './graphql-cases';
import { Known, resolveKnown, toJsonText, type PoolName } from './hostile-values';
import { restCases, wirePath, type OpenApiDocument, type RestCase, type RestDocument } from './rest-cases';
import { changedTables, tableFingerprint, type Fingerprint } from './table-fingerprint';

/** The running platform the fuzzer aims at, and the records it may address. */
export interface FuzzTarget {
  restUrl: string;
  gatewayUrl: string;
  /** A key of the fixture branch with both scopes, and one with tickets:read only. */
  ticketKey: string;
  ticketReadKey: string;
  cvKey: string;
  branchId: number;
  cvAccountId: number;
  /** A connection to the platform's database, for the fingerprints and the pools. */
  database: Client;
}

export interface FuzzOptions {
  seed: number;
  /** Stops after this many cases… */
  maxCases: number;
  /** …or at this time (epoch ms), whichever comes first. */
  deadline: number;
  /** Called every so often with the cases run so far. */
  progress?: (cases: number, failures: number) => void;
}

export interface FuzzFailure {
  /** What went wrong where, e.g. `POST /tickets → 500`: failures of one kind are counted together. */
  kind: string;
  count: number;
  /** The first case of this kind, as sent and as answered. */
  example: string;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  restCases: number;
  graphCases: number;
  /** Generated but not sent (see Outcome.skipped). */
  skipped: number;
  durationMs: number;
  failures: FuzzFailure[];
  /** How many cases were answered how (`REST 422`, `GraphQL BAD_USER_INPUT`, `GraphQL data`…). */
  answers: Record<string, number>;
}

/** Codes Apollo gives to a client's own mistakes: the platform passes them on as they are. */
const APOLLO_CLIENT_CODES = [
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
];

/** Platform codes that are the server's failure, not the client's: the graph's 5xx. */
const SERVER_CODES = new Set(['UNAVAILABLE']);

const ALLOWED_CODES = new Set<string>([...ERROR_CODES, ...APOLLO_CLIENT_CODES]);

/** Longer URLs are not sent: Node answers 431 for a request line past 16 KB before the adapter sees it. */
const URL_MAX = 12_000;

/** What fetch adds to a request's head of its own (host, connection, user-agent, lengths), at most. */
const FETCH_HEAD_BYTES = 512;

/** The bytes of a request's line and the headers a case sets, as Node counts them against its limit. */
function headBytes(method: string, path: string, headers: Record<string, string>): number {
  let bytes = Buffer.byteLength(`${method} ${path} HTTP/1.1\r\n`);
  for (const [name, value] of Object.entries(headers)) bytes += Buffer.byteLength(`${name}: ${value}\r\n`);
  return bytes;
}

/** How often the pools of live records are read again, in cases. */
const POOL_REFRESH = 20;

const WRONG_TICKET_KEY = 'tk_fuzzWrongKey00000000000000000000';
const WRONG_CV_KEY = 'cv_fuzzWrongKey00000000000000000000';

type Pools = Record<PoolName, string[]>;

function short(text: string, max = 240): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}

/** Field errors as the documents define them: an object of non-empty string arrays. */
function isFieldErrors(value: unknown): value is Record<string, string[]> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every(
      (messages) =>
        Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'),
    )
  );
}

/**
 * The database floor (common/database-errors.ts) reports a refused value under `request`: the edges
 * let a value through that they should have named.
 */
const onlyFloor = (errors: Record<string, string[]>) =>
  Object.keys(errors).length > 0 && Object.keys(errors).every((key) => key === 'request');

/** What is wrong with a REST error body, or undefined when it is the document's shape. */
export function restShapeProblem(document: RestDocument, status: number, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return 'the error body is not a JSON object';
  const { message, errors } = body as { message?: unknown; errors?: unknown };
  if (typeof message !== 'string' || message === '') return 'the error body has no message';
  if (document === 'cv' && errors === undefined) return 'a CV error body has no errors';
  if (errors !== undefined && !isFieldErrors(errors)) return 'errors is not an object of string arrays';
  if (status === 422) {
    if (!isFieldErrors(errors) || Object.keys(errors).length === 0) return 'a 422 names no field';
    if (onlyFloor(errors)) return 'a 422 from the database floor names no field';
  }
  return undefined;
}

/** What is wrong with a GraphQL answer's errors, or undefined when every one is a client's or a typed refusal. */
export function graphErrorProblem(errors: unknown): string | undefined {
  if (!Array.isArray(errors)) return 'errors is not an array';
  for (const error of errors as { message?: unknown; extensions?: { code?: unknown; errors?: unknown } }[]) {
    const code = error.extensions?.code;
    if (typeof code !== 'string') return 'an error without extensions.code';
    if (SERVER_CODES.has(code) || !ALLOWED_CODES.has(code)) return code;
    if (
      code === 'BAD_USER_INPUT' &&
      isFieldErrors(error.extensions?.errors) &&
      onlyFloor(error.extensions.errors)
    ) {
      return 'BAD_USER_INPUT from the database floor names no argument';
    }
  }
  return undefined;
}

/** The gateway's API schema: the supergraph without its @inaccessible fields, as clients see it. */
export async function apiSchema(): Promise<GraphQLSchema> {
  const sdl = await readFile(SUPERGRAPH_FILE(), 'utf8');
  return Supergraph.build(sdl).apiSchema().toGraphQLJSSchema();
}

async function openApi(url: string, headers: Record<string, string>): Promise<OpenApiDocument> {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as OpenApiDocument;
}

/** Which live records a REST parameter or body field names. */
function restPoolOf(document: RestDocument) {
  return (template: string, name: string): PoolName | undefined => {
    if (document === 'tickets') {
      if (name === 'id') return 'ticketId';
      if (name === 'externalId' || name === 'external_id') return 'externalId';
      return undefined;
    }
    if (name === 'uuid') return 'cvId';
    if (name === 'template_id' || (name === 'id' && template.startsWith('/templates/'))) return 'templateId';
    return undefined;
  };
}

const TICKET_FIELDS = new Set([
  'ticket',
  'markTicketReady',
  'markTicketCollected',
  'cancelTicket',
  'ringTicket',
]);

const graphPoolOf: GraphPoolOf = (field, argument) => {
  switch (argument) {
    case 'id':
      if (TICKET_FIELDS.has(field)) return 'ticketId';
      if (field === 'template' || field === 'templatePreviewHtml') return 'templateId';
      return 'cvId';
    case 'templateId':
      return 'templateId';
    case 'externalId':
      return 'externalId';
    case 'token':
      return field === 'sharedCvHtml' ? 'shareToken' : 'ticketToken';
    case 'key':
      return 'planKey';
    default:
      return undefined;
  }
};

async function readPools(target: FuzzTarget): Promise<Pools> {
  const column = async (sql: string, params: unknown[] = []) =>
    (await target.database.query<{ v: string }>(sql, params)).rows.map((row) => String(row.v));
  return {
    // Newest first, and a few of another branch or account (403 and 404 paths).
    ticketId: await column(
      'select id as v from tickets.tickets order by (branch_id = $1) desc, id desc limit 30',
      [target.branchId],
    ),
    externalId: await column(
      'select external_id as v from tickets.tickets where external_id is not null order by id desc limit 30',
    ),
    ticketToken: await column('select token as v from tickets.tickets order by id desc limit 30'),
    cvId: await column(
      'select id as v from cv.cvs order by (account_id = $1) desc, created_at desc limit 30',
      [target.cvAccountId],
    ),
    templateId: await column('select id as v from cv.templates order by id'),
    shareToken: await column('select share_token as v from cv.cvs order by created_at desc limit 30'),
    planKey: await column('select key as v from billing.plans order by key'),
  };
}

interface Outcome {
  /** How it was answered, for the report's tally: an HTTP status, or the graph's first error code. */
  answer: string;
  /** Not sent: a URL longer than Node's 16 KB request line is refused by Node itself, before any route. */
  skipped?: boolean;
  refused: boolean;
  /** A failure's kind and its details, when the answer broke a rule. */
  problem?: { kind: string; detail: string };
  shown: string;
}

async function sendRest(target: FuzzTarget, restCase: RestCase, pools: Pools): Promise<Outcome> {
  const resolve = (known: Known) => String(resolveKnown(known, pools));
  const { path, display } = wirePath(restCase, resolve);
  if (path.length > URL_MAX) return { answer: 'not sent', skipped: true, refused: false, shown: display };
  const headers: Record<string, string> = { accept: 'application/json', ...restCase.headers };
  const keyHeader = restCase.document === 'tickets' ? 'authorization' : 'x-api-key';
  const keyOf = {
    valid: restCase.document === 'tickets' ? target.ticketKey : target.cvKey,
    readOnly: restCase.document === 'tickets' ? target.ticketReadKey : target.cvKey,
    wrong: restCase.document === 'tickets' ? WRONG_TICKET_KEY : WRONG_CV_KEY,
    none: undefined,
  }[restCase.credential];
  if (keyOf !== undefined) headers[keyHeader] = restCase.document === 'tickets' ? `Bearer ${keyOf}` : keyOf;
  let body: string | FormData | undefined;
  let bodyShown = '';
  const sent = restCase.body;
  if (sent?.kind === 'json') {
    body = toJsonText(resolveKnown(sent.value, pools));
    headers['content-type'] = 'application/json';
    bodyShown = body;
  } else if (sent?.kind === 'text') {
    body = sent.text;
    headers['content-type'] = sent.contentType;
    if (sent.contentEncoding !== undefined) headers['content-encoding'] = sent.contentEncoding;
    bodyShown = `${sent.contentType}${sent.contentEncoding === undefined ? '' : ` (${sent.contentEncoding})`}: ${sent.text}`;
  } else if (sent?.kind === 'multipart') {
    body = new FormData();
    body.append(sent.field, new Blob([Buffer.from(sent.bytes)], { type: sent.type }), 'photo.bin');
    bodyShown = `multipart ${sent.field} (${sent.type}, ${sent.bytes.length} bytes)`;
  }
  const shownRequest = `${restCase.method} ${display} [${restCase.credential}]${bodyShown === '' ? '' : ` ${short(bodyShown)}`}`;
  const response = await fetch(`${target.restUrl}${path}`, {
    method: restCase.method,
    headers,
    ...(body === undefined ? {} : { body }),
    redirect: 'manual',
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  const shown = `${shownRequest} → ${response.status} ${short(text)}`;
  const where = `${restCase.method} ${restCase.template}`;
  const answer = `REST ${response.status}`;
  if (response.status >= 500) {
    return {
      answer,
      refused: true,
      problem: { kind: `${where} → ${response.status}`, detail: shown },
      shown,
    };
  }
  if (response.status < 400) return { answer, refused: false, shown };
  // Node refuses a head past the door's limit with a bare 431 before any route (API-DECISIONS.md,
  // "Control characters in headers"): a case's long URL and a 5,000-character header can reach it.
  if (
    response.status === 431 &&
    headBytes(restCase.method, `${new URL(target.restUrl).pathname}${path}`, headers) >
      HEADER_LIMITS.restAdapter - FETCH_HEAD_BYTES
  )
    return { answer, refused: true, shown };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const problem = restShapeProblem(restCase.document, response.status, parsed);
  return {
    answer,
    refused: true,
    ...(problem === undefined
      ? {}
      : { problem: { kind: `${where} → ${response.status}: ${problem}`, detail: shown } }),
    shown,
  };
}

async function sendGraph(
  target: FuzzTarget,
  schema: GraphQLSchema,
  graphCase: GraphCase,
  pools: Pools,
): Promise<Outcome> {
  const resolved = graphCase.args.map((arg) => ({ ...arg, value: resolveKnown(arg.value, pools) }));
  const { query, variables } = graphRequest(schema, graphCase, resolved);
  if (graphCase.operation === 'subscription') return sendOverSocket(target, graphCase, query, variables);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (graphCase.credential === 'valid') {
    headers.authorization = `Bearer ${target.ticketKey}`;
    headers['x-api-key'] = target.cvKey;
  } else if (graphCase.credential === 'wrong') {
    headers.authorization = `Bearer ${WRONG_TICKET_KEY}`;
    headers['x-api-key'] = WRONG_CV_KEY;
  } else if (graphCase.credential === 'token') {
    headers['x-ticket-token'] = String(resolveKnown(new Known('ticketToken', 0), pools));
  }
  if (graphCase.language !== undefined) headers['accept-language'] = graphCase.language;
  const body = toJsonText({ query, variables, operationName: 'Fuzz' });
  const response = await fetch(target.gatewayUrl, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  const shown = `${short(body, 400)} [${graphCase.credential}] → ${response.status} ${short(text)}`;
  const where = `${graphCase.operation} ${graphCase.field}`;
  if (response.status >= 500) {
    return {
      answer: `GraphQL HTTP ${response.status}`,
      refused: true,
      problem: { kind: `${where} → HTTP ${response.status}`, detail: shown },
      shown,
    };
  }
  let parsed: { data?: Record<string, unknown> | null; errors?: unknown } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return {
      answer: 'GraphQL not JSON',
      refused: true,
      problem: { kind: `${where} → not JSON`, detail: shown },
      shown,
    };
  }
  if (parsed?.errors === undefined) return { answer: 'GraphQL data', refused: false, shown };
  const refused = parsed.data === null || parsed.data === undefined || parsed.data[graphCase.field] === null;
  const problem = graphErrorProblem(parsed.errors);
  const code = (parsed.errors as { extensions?: { code?: unknown } }[])[0]?.extensions?.code;
  return {
    answer: `GraphQL ${refused ? String(code) : 'partial data'}`,
    refused,
    ...(problem === undefined ? {} : { problem: { kind: `${where} → ${problem}`, detail: shown } }),
    shown,
  };
}

/** Closes of a graphql-ws socket that are the server's failure: an internal error, an abnormal end, Redis away. */
const SERVER_CLOSES = new Set([1006, 1011, 1013, 4500]);
/** A subscription the gateway accepts answers nothing until an event; this long is taken as accepted. */
const SUBSCRIBED_AFTER_MS = 250;

/**
 * Sends a subscription over its own graphql-ws socket, with the case's credentials in
 * connection_init, and reads what the gateway first says of it: an error for that operation, a
 * result, silence (subscribed), or a closed socket.
 */
async function sendOverSocket(
  target: FuzzTarget,
  graphCase: GraphCase,
  query: string,
  variables: Record<string, unknown>,
): Promise<Outcome> {
  const params: Record<string, string> = {};
  if (graphCase.credential === 'valid') {
    params.authorization = `Bearer ${target.ticketKey}`;
    params['x-api-key'] = target.cvKey;
  } else if (graphCase.credential === 'wrong') {
    params.authorization = `Bearer ${WRONG_TICKET_KEY}`;
    params['x-api-key'] = WRONG_CV_KEY;
  }
  if (graphCase.language !== undefined) params['accept-language'] = graphCase.language;
  const socket = new WebSocket(target.gatewayUrl.replace(/^http/, 'ws'), 'graphql-transport-ws');
  const first = await new Promise<
    | { kind: 'message'; type: string; payload: unknown }
    | { kind: 'closed'; code: number }
    | { kind: 'silent' }
  >((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: params })));
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { type: string; id?: string; payload?: unknown };
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ id: 'fuzz', type: 'subscribe', payload: { query, variables } }));
        timer = setTimeout(() => resolve({ kind: 'silent' }), SUBSCRIBED_AFTER_MS);
      } else if (message.id === 'fuzz') {
        clearTimeout(timer);
        resolve({ kind: 'message', type: message.type, payload: message.payload });
      }
    });
    socket.on('close', (code: number) => {
      clearTimeout(timer);
      resolve({ kind: 'closed', code });
    });
    socket.on('error', () => undefined);
  });
  socket.close();
  const where = `subscription ${graphCase.field}`;
  const shown = `${short(JSON.stringify({ query, variables }), 400)} [${graphCase.credential}] → ${short(JSON.stringify(first))}`;
  if (first.kind === 'silent') return { answer: 'graphql-ws subscribed', refused: false, shown };
  if (first.kind === 'closed') {
    return {
      answer: `graphql-ws closed ${first.code}`,
      refused: true,
      ...(SERVER_CLOSES.has(first.code)
        ? { problem: { kind: `${where} → socket closed ${first.code}`, detail: shown } }
        : {}),
      shown,
    };
  }
  const errors =
    first.type === 'error' ? first.payload : (first.payload as { errors?: unknown } | undefined)?.errors;
  if (errors === undefined) return { answer: 'graphql-ws data', refused: false, shown };
  const problem = graphErrorProblem(errors);
  const code = (errors as { extensions?: { code?: unknown } }[])[0]?.extensions?.code;
  return {
    answer: `graphql-ws ${String(code)}`,
    refused: true,
    ...(problem === undefined ? {} : { problem: { kind: `${where} → ${problem}`, detail: shown } }),
    shown,
  };
}

/**
 * Sends generated cases one after another, so each refused request can be checked to have written
 * nothing: the tables' fingerprint after one case is the fingerprint before the next.
 */
export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const schema = await apiSchema();
  const ticketsApi = await openApi(`${target.restUrl}/openapi.json`, {
    authorization: `Bearer ${target.ticketKey}`,
  });
  const cvApi = await openApi(`${target.restUrl}/cv/openapi.json`, { 'x-api-key': target.cvKey });
  const everyCase = fc.oneof(
    ...restCases('tickets', ticketsApi, restPoolOf('tickets')),
    ...restCases('cv', cvApi, restPoolOf('cv')),
    ...graphCases(schema, graphPoolOf),
  );
  const fingerprint = await tableFingerprint(target.database);
  const failures = new Map<string, FuzzFailure>();
  const record = (kind: string, detail: string) => {
    const seen = failures.get(kind);
    if (seen === undefined) failures.set(kind, { kind, count: 1, example: detail });
    else seen.count += 1;
  };
  let pools = await readPools(target);
  let before: Fingerprint = await fingerprint.take();
  let cases = 0;
  let rest = 0;
  let graph = 0;
  let skipped = 0;
  const answers: Record<string, number> = {};
  for (let round = 0; cases < options.maxCases && Date.now() < options.deadline; round += 1) {
    // Each round is its own sample of the seed, so a run of any length replays exactly.
    for (const fuzzCase of fc.sample(everyCase, { seed: options.seed + round, numRuns: 50 })) {
      if (cases >= options.maxCases || Date.now() >= options.deadline) break;
      if (cases % POOL_REFRESH === 0) pools = await readPools(target);
      cases += 1;
      let outcome: Outcome;
      try {
        if (fuzzCase.kind === 'rest') {
          rest += 1;
          outcome = await sendRest(target, fuzzCase, pools);
        } else {
          graph += 1;
          outcome = await sendGraph(target, schema, fuzzCase, pools);
        }
      } catch (error) {
        const where = fuzzCase.kind === 'rest' ? `${fuzzCase.method} ${fuzzCase.template}` : fuzzCase.field;
        record(`${where}: no answer (${(error as Error).name})`, `${(error as Error).message}`);
        before = await fingerprint.take();
        continue;
      }
      answers[outcome.answer] = (answers[outcome.answer] ?? 0) + 1;
      if (outcome.skipped === true) {
        cases -= 1;
        rest -= 1;
        skipped += 1;
        continue;
      }
      if (outcome.problem !== undefined) record(outcome.problem.kind, outcome.problem.detail);
      const after = await fingerprint.take();
      if (outcome.refused) {
        const written = changedTables(before, after);
        if (written.length > 0) {
          const where = fuzzCase.kind === 'rest' ? `${fuzzCase.method} ${fuzzCase.template}` : fuzzCase.field;
          record(`${where}: refused but wrote ${written.join(', ')}`, outcome.shown);
        }
      }
      before = after;
      if (cases % 100 === 0) options.progress?.(cases, failures.size);
    }
  }
  return {
    seed: options.seed,
    cases,
    restCases: rest,
    graphCases: graph,
    skipped,
    durationMs: Date.now() - started,
    failures: [...failures.values()],
    answers,
  };
}

/** The report as the fuzz command prints it. */
export function formatReport(report: FuzzReport): string {
  const lines = [
    `fuzz: seed ${report.seed}: ${report.cases} cases (${report.restCases} REST, ${report.graphCases} GraphQL) in ${(report.durationMs / 1000).toFixed(1)} s` +
      (report.skipped > 0 ? `; ${report.skipped} with a URL over ${URL_MAX} characters not sent` : ''),
    `fuzz: ${report.failures.reduce((n, f) => n + f.count, 0)} failing cases of ${report.failures.length} kinds`,
  ];
  const tally = Object.entries(report.answers).sort(([a], [b]) => a.localeCompare(b));
  lines.push(`fuzz: answers: ${tally.map(([answer, n]) => `${answer} ×${n}`).join(', ')}`);
  for (const failure of report.failures) {
    lines.push(`  ✗ ${failure.kind} (${failure.count}×)`, `      e.g. ${failure.example}`);
  }
  return `${lines.join('\n')}\n`;
}
