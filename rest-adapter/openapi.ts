import { z } from 'zod';
import { rateLimitHeaders as sentHeaders, type RatePolicy } from '../common/rate-budget';
import { REQUEST_ID_PATTERN } from '../common/request-context';
import { openApiPath, type HttpMethod, type RestRoute } from './route-table';

/**
 * What the adapter's OpenAPI 3.1 documents share. Each document is built from its route tables and
 * the zod schemas that validate its requests, so what it publishes cannot drift from what is served
 * and enforced.
 */

export type JsonSchema = Record<string, unknown>;

/** A registry whose schemas carry an id: the global one, or a document's own. */
export type SchemaRegistry = z.core.$ZodRegistry<{ id?: string | undefined }>;

/** A reference to one of the document's named schemas. */
export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

// Inside a document the schemas are fragments of it, not documents of their own.
function clean(schema: JsonSchema): JsonSchema {
  delete schema.$schema;
  delete schema.$id;
  return schema;
}

/** A parameter's schema, as it is accepted. */
export function parameterSchema(schema: z.ZodType): JsonSchema {
  return clean(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }));
}

/**
 * The named schemas of `registry` as components that refer to each other: responses as they are
 * sent, request bodies as they are accepted.
 */
export function components(
  ids: readonly string[],
  requestIds: readonly string[],
  registry: SchemaRegistry = z.globalRegistry,
): Record<string, JsonSchema> {
  const convert = (io: 'input' | 'output') =>
    z.toJSONSchema(registry, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      uri: (id) => `#/components/schemas/${id}`,
    }).schemas as Record<string, JsonSchema>;
  const sent = convert('output');
  const accepted = convert('input');
  return Object.fromEntries(
    ids.map((id) => {
      const schema = (requestIds.includes(id) ? accepted : sent)[id];
      if (schema === undefined) throw new Error(`no schema named ${id}`);
      return [id, clean(schema)];
    }),
  );
}

/** A JSON body of the given schema. */
export const json = (schemaRef: object) => ({ content: { 'application/json': { schema: schemaRef } } });

type Headers = Record<string, unknown>;

/** A budget's name as the rate headers quote it: "tickets", "public-writes". */
const BUDGET_NAME = '"[a-z]+(?:-[a-z]+)*"';

/** A header of one or more entries, comma-separated, as an answer counted by two budgets carries. */
const entries = (entry: string) => `^${entry}(?:, ${entry})*$`;

/**
 * The IETF httpapi draft headers of rate-limit.ts, on every answer of a counted route. Their schema
 * names no budget: which one counted a request depends on its credential (a key, an account, or
 * none the platform knows, which counts against the client address).
 */
export function rateLimitHeaders(policy: RatePolicy): Headers {
  const example = sentHeaders([{ policy, allowed: true }])['RateLimit-Policy'];
  return {
    'RateLimit-Policy': {
      description: `IETF httpapi draft: the quota of the budget the request counted against, such as ${example}.`,
      required: true,
      schema: { type: 'string', pattern: entries(`${BUDGET_NAME};q=[0-9]+;w=[0-9]+`) },
    },
    // Not required: the limits fail open, so while Redis cannot count there is nothing to report.
    RateLimit: {
      description:
        'IETF httpapi draft: requests left (r) and seconds until the window resets (t). Absent only while the platform cannot count (its Redis unreachable), when requests are let through.',
      schema: { type: 'string', pattern: entries(`${BUDGET_NAME};r=[0-9]+;t=[0-9]+`) },
    },
  };
}

/** The request id header every answer carries. */
export function requestIdHeader(): Headers {
  return {
    'X-Request-Id': {
      description:
        'The request’s id, also on every log line it caused: the caller’s own X-Request-Id when it matches this pattern, else a new UUID.',
      required: true,
      schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source },
    },
  };
}

/** Retry-After, on every answer that refuses for now (a budget, the ring interval, a busy renderer). */
export const retryAfter = {
  'Retry-After': { description: 'Seconds to wait.', required: true, schema: { type: 'integer', minimum: 1 } },
};

/** What the input guard (input-guard.ts) refuses on every route of both documents, as a 422 says it. */
export const TEXT_RULE =
  'a query value, a JSON body field (at any depth) or a header the route reads holds a NUL, a lone surrogate or bytes that are not UTF-8; the field is named.';

/** Response objects that carry `headers` beside their own, with `errorBody` the usual error schema. */
export function responses(headers: Headers, errorBody: string) {
  return {
    ok: (description: string, schemaRef: object, extraHeaders: Headers = {}) => ({
      description,
      headers: { ...headers, ...extraHeaders },
      ...json(schemaRef),
    }),
    error: (description: string, body = errorBody, extraHeaders: Headers = {}) => ({
      description,
      headers: { ...headers, ...extraHeaders },
      ...json(ref(body)),
    }),
  };
}

/** What a route publishes about itself: one operation of its document. */
export interface OperationDescription {
  operationId: string;
  summary: string;
  description?: string;
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

/** What a document says before its paths. */
export interface DocumentHead {
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  security: Record<string, string[]>[];
}

/** The `paths` of a route table: each route's operation under its OpenAPI path, in the table's order. */
export function pathsOf<TDescriptions>(
  routes: readonly RestRoute<TDescriptions, never>[],
  descriptions: TDescriptions,
): Record<string, Partial<Record<HttpMethod, OperationDescription>>> {
  const paths: Record<string, Partial<Record<HttpMethod, OperationDescription>>> = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    if (item[route.method] !== undefined) {
      throw new Error(`${route.method.toUpperCase()} ${route.path} is in the route table twice`);
    }
    item[route.method] = route.openapi(descriptions);
  }
  return paths;
}

/** An OpenAPI 3.1 document: its head, the paths of its route tables and its components. */
export function openApiDocument<TDescriptions>(
  head: DocumentHead,
  routes: readonly RestRoute<TDescriptions, never>[],
  descriptions: TDescriptions,
  components: Record<string, unknown>,
): Record<string, unknown> {
  return { openapi: '3.1.0', ...head, paths: pathsOf(routes, descriptions), components };
}

/** The keys of a type at every depth; a record (such as a payload row typed loosely) is one leaf. */
type Shape<T> = T extends readonly (infer E)[]
  ? Shape<E>[]
  : T extends object
    ? string extends keyof T
      ? 'record'
      : { [K in keyof T]-?: Shape<T[K]> }
    : 'value';
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compile-time: a field added to or dropped from a resource fails the build until its schema follows. */
export function describes<S extends z.ZodType, R>(
  _schema: S,
  _resource: (...args: never[]) => R,
  ..._differ: Same<Shape<z.output<S>>, Shape<R>> extends true ? [] : ['schema and resource differ']
): void {}
