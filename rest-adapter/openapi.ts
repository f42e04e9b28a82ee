import { z } from 'zod';

/**
 * What the adapter's OpenAPI 3.1 documents share. Each document is built from the zod schemas that
 * validate its requests, so what it publishes cannot drift from what is enforced.
 */

export type JsonSchema = Record<string, unknown>;

/** A registry whose schemas carry an id: the global one, or a document's own. */
export type SchemaRegistry = z.core.$ZodRegistry<{ id?: string | undefined }>;

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

export const json = (schemaRef: object) => ({ content: { 'application/json': { schema: schemaRef } } });

type Headers = Record<string, unknown>;

/** The IETF httpapi draft headers of rate-limit.ts; `policy` is an example of the quota. */
export function rateLimitHeaders(policy: string, required?: boolean): Headers {
  const presence = required === undefined ? {} : { required };
  return {
    'RateLimit-Policy': {
      description: `IETF httpapi draft: the quota (${policy}).`,
      ...presence,
      schema: { type: 'string' },
    },
    RateLimit: {
      description: 'IETF httpapi draft: requests left (r) and seconds until reset (t).',
      ...presence,
      schema: { type: 'string' },
    },
  };
}

export function requestIdHeader(required?: boolean): Headers {
  return {
    'X-Request-Id': {
      description: 'The request’s id, also on every log line it caused.',
      ...(required === undefined ? {} : { required }),
      schema: { type: 'string' },
    },
  };
}

export const retryAfter = { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } };

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
