import fc from 'fast-check';
import { hostileNumber, hostileString, Known, nastyString, percentEncode, Raw } from './hostile-values';
import { schemaArbitrary, type JsonSchema, type SchemaContext } from './json-schema.arbitrary';
import type { PoolName } from './hostile-values';

/** The two documents the adapter speaks; each has its own credential and error shape. */
export type RestDocument = 'tickets' | 'cv';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: JsonSchema;
}

interface Operation {
  operationId?: string;
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  security?: unknown[];
}

/** The parts of an OpenAPI 3.1 document the fuzzer reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema>; parameters?: Record<string, Parameter> };
}

/** A path segment: text to percent-encode, or bytes already on the wire (`%FF`). */
export type Segment = { text: string | Known } | { wire: string };

export type RestBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; contentType: string; text: string; contentEncoding?: string }
  | { kind: 'multipart'; field: string; bytes: Uint8Array; type: string };

/** One request to the REST adapter, before the live values it names are looked up. */
export interface RestCase {
  kind: 'rest';
  document: RestDocument;
  method: string;
  /** The document's path, e.g. `/tickets/{id}/ready`. */
  template: string;
  params: Record<string, Segment>;
  query: [string, Segment][];
  headers: Record<string, string>;
  body?: RestBody;
  credential: Credential;
}

/** Whose key the request carries: the fixture's, a read-only one, a made-up one or none. */
export type Credential = 'valid' | 'readOnly' | 'wrong' | 'none';

/** The longest text put in one path segment or query value: a few kilobytes once percent-encoded. */
const URL_TEXT_MAX = 600;

/** Undecodable or surprising percent-encodings no encoder of text would produce. */
const WIRE_SEGMENTS = [
  '%FF',
  '%',
  '%zz',
  '%C0%80',
  '%E0%A4',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%00',
  '%2F',
  '%20',
];

/** A tiny valid PNG, so a photo upload can succeed and reach the image code. */
const PNG_1X1 = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  ),
);

/** Header values fetch can send: a header with NUL or a line break never reaches a route (Node refuses it). */
const headerSafe = (text: string) => /^[\u0020-\u007e\u0080-\u00ff]*$/.test(text) && text.trim() === text;

function parameterValue(parameter: Parameter, context: SchemaContext): fc.Arbitrary<Segment> {
  const schema = parameter.schema ?? { type: 'string' };
  const pool = context.poolOf(parameter.name);
  const asText = (value: unknown): Segment =>
    value instanceof Known
      ? { text: value }
      : value instanceof Raw
        ? { text: value.json }
        : { text: typeof value === 'string' ? value : JSON.stringify(value) };
  return fc.oneof(
    {
      weight: pool === undefined ? 0 : 5,
      arbitrary: fc.nat().map((pick): Segment => ({ text: new Known(pool ?? 'ticketId', pick) })),
    },
    { weight: 3, arbitrary: schemaArbitrary(schema, context, parameter.name).map(asText) },
    {
      weight: 2,
      arbitrary: hostileString(schema.maxLength, URL_TEXT_MAX).map((text): Segment => ({ text })),
    },
    { weight: 1, arbitrary: hostileNumber(schema.minimum, schema.maximum).map(asText) },
    { weight: 1, arbitrary: fc.constantFrom(...WIRE_SEGMENTS).map((wire): Segment => ({ wire })) },
  );
}

function headerValue(parameter: Parameter): fc.Arbitrary<string> {
  const samples: Record<string, string[]> = {
    'accept-language': ['ar', 'en', 'ar-IQ,ar;q=0.9,en;q=0.8', 'fr', '*', 'ÿÿ', 'x'.repeat(5000)],
    'idempotency-key': ['order-1', 'x'.repeat(255), 'x'.repeat(256), 'ÿé', ' '],
    'if-none-match': ['*', '"abc"', 'W/"abc"', 'garbage', '"'],
  };
  return fc.oneof(
    fc.constantFrom(...(samples[parameter.name.toLowerCase()] ?? ['x'])),
    fc.string({ maxLength: 30, unit: 'binary-ascii' }).filter(headerSafe),
    nastyString(20).filter(headerSafe),
  );
}

function bodyArbitrary(operation: Operation, context: SchemaContext): fc.Arbitrary<RestBody | undefined> {
  const content = operation.requestBody?.content ?? {};
  const json = content['application/json']?.schema;
  const multipart = content['multipart/form-data']?.schema;
  const options: fc.Arbitrary<RestBody | undefined>[] = [
    fc.constant(undefined),
    fc.constantFrom(
      { kind: 'text', contentType: 'application/json', text: '{"unterminated": ' },
      { kind: 'text', contentType: 'application/json', text: '' },
      { kind: 'text', contentType: 'text/plain', text: 'hello' },
      { kind: 'text', contentType: 'application/json; charset=latin1', text: '{}' },
      { kind: 'text', contentType: 'application/x-www-form-urlencoded', text: 'a=1&b[]=2' },
      { kind: 'text', contentType: 'application/json', text: '{"a":1,"a":2}' },
      { kind: 'text', contentType: 'application/json', text: '"\\ud800"' },
      { kind: 'text', contentType: 'application/json', text: '[' + '['.repeat(5000) },
      // Bodies that are not what their Content-Encoding says.
      { kind: 'text', contentType: 'application/json', contentEncoding: 'gzip', text: '{}' },
      { kind: 'text', contentType: 'application/json', contentEncoding: 'br', text: '{"a":1}' },
      { kind: 'text', contentType: 'application/json', contentEncoding: 'x-unknown', text: '{}' },
    ),
  ];
  if (json !== undefined) {
    options.push(schemaArbitrary(json, context, 'body').map((value): RestBody => ({ kind: 'json', value })));
    options.push(schemaArbitrary(json, context, 'body').map((value): RestBody => ({ kind: 'json', value })));
  }
  if (multipart !== undefined) {
    options.push(
      fc
        .tuple(
          fc.constantFrom('photo', 'photo', 'image', ''),
          fc.oneof(fc.constant(PNG_1X1), fc.uint8Array({ maxLength: 64 })),
          fc.constantFrom('image/png', 'image/jpeg', 'text/plain', 'application/octet-stream'),
        )
        .map(([field, bytes, type]): RestBody => ({ kind: 'multipart', field, bytes, type })),
    );
  }
  return fc.oneof(...options);
}

function parametersOf(operation: Operation, document: OpenApiDocument): Parameter[] {
  return (operation.parameters ?? []).map((p) => {
    if ('$ref' in p) {
      const name = p.$ref.split('/').pop() ?? '';
      const found = document.components?.parameters?.[name];
      if (found === undefined) throw new Error(`unknown parameter ${p.$ref}`);
      return found;
    }
    return p;
  });
}

/** A case for every operation of the document, each as likely as the others. */
export function restCases(
  documentName: RestDocument,
  document: OpenApiDocument,
  poolOf: (template: string, name: string) => PoolName | undefined,
): fc.Arbitrary<RestCase>[] {
  const arbitraries: fc.Arbitrary<RestCase>[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const context: SchemaContext = {
        resolve: (ref) => {
          const name = ref.split('/').pop() ?? '';
          const schema = document.components?.schemas?.[name];
          if (schema === undefined) throw new Error(`unknown schema ${ref}`);
          return schema;
        },
        poolOf: (name) => poolOf(template, name),
      };
      const parameters = parametersOf(operation, document);
      const inPath = parameters.filter((p) => p.in === 'path');
      const inQuery = parameters.filter((p) => p.in === 'query');
      const inHeader = parameters.filter((p) => p.in === 'header');
      const params = fc.record(Object.fromEntries(inPath.map((p) => [p.name, parameterValue(p, context)])));
      const query = fc
        .tuple(
          ...inQuery.map((p) =>
            fc.option(
              fc
                .array(parameterValue(p, context), { minLength: 1, maxLength: 2 })
                .map((values) => values.map((value): [string, Segment] => [p.name, value])),
            ),
          ),
          fc.option(
            fc
              .tuple(hostileString(20, 20), parameterValue({ name: 'extra', in: 'query' }, context))
              .map((pair): [string, Segment][] => [pair]),
            { freq: 4 },
          ),
        )
        .map((entries) => entries.flatMap((entry) => entry ?? []));
      const headers = fc.record(Object.fromEntries(inHeader.map((p) => [p.name, headerValue(p)])), {
        requiredKeys: [],
      }) as fc.Arbitrary<Record<string, string>>;
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      const credential = isPublic
        ? fc.constant<Credential>('none')
        : fc.oneof(
            { weight: 12, arbitrary: fc.constant<Credential>('valid') },
            { weight: 1, arbitrary: fc.constant<Credential>('readOnly') },
            { weight: 1, arbitrary: fc.constant<Credential>('wrong') },
            { weight: 1, arbitrary: fc.constant<Credential>('none') },
          );
      // fetch sends no body with GET (nor do clients), so those cases carry none.
      const body = method === 'get' ? fc.constant(undefined) : bodyArbitrary(operation, context);
      arbitraries.push(
        fc
          .record({
            params,
            query,
            headers,
            body,
            credential,
          })
          .map(({ body, ...rest }): RestCase => ({
            kind: 'rest',
            document: documentName,
            method: method.toUpperCase(),
            template,
            ...rest,
            ...(body === undefined ? {} : { body }),
          })),
      );
    }
  }
  return arbitraries;
}

/** The path and query of a case as sent, with live values in place. */
export function wirePath(
  restCase: RestCase,
  resolve: (known: Known) => string,
): { path: string; display: string } {
  const encode = (segment: Segment) =>
    'wire' in segment
      ? segment.wire
      : percentEncode(segment.text instanceof Known ? resolve(segment.text) : segment.text);
  const path = restCase.template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const segment = restCase.params[name];
    return segment === undefined ? '' : encode(segment);
  });
  const query = restCase.query.map(([name, value]) => `${percentEncode(name)}=${encode(value)}`).join('&');
  const full = query === '' ? path : `${path}?${query}`;
  return { path: full, display: full.length > 160 ? `${full.slice(0, 160)}…(${full.length})` : full };
}
