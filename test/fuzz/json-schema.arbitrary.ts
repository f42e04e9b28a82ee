import fc from 'fast-check';
import { hostileKey, hostileNumber, hostileString, Known, wrongType, type PoolName } from './hostile-values';

/** The subset of JSON Schema 2020-12 the adapter's OpenAPI documents use. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  maxItems?: number;
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
}

export interface SchemaContext {
  /** Resolves `#/components/schemas/X` (and any other local pointer) in the document. */
  resolve(ref: string): JsonSchema;
  /** The pool of live records a field of this name addresses, if any (template_id → templateId). */
  poolOf(name: string): PoolName | undefined;
}

/** Depth past which only small valid values are made, so nested schemas stay cheap to sample. */
const DEEP = 4;

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties !== undefined) return ['object'];
  if (schema.items !== undefined) return ['array'];
  return [];
}

/**
 * Values for a schema: mostly what it accepts (so requests reach the deeper code), and often what
 * it does not: another JSON type, a limit crossed, a hostile string, a key missing or one too many.
 */
export function schemaArbitrary(
  schema: JsonSchema,
  context: SchemaContext,
  name = '',
  depth = 0,
): fc.Arbitrary<unknown> {
  if (schema.$ref !== undefined) return schemaArbitrary(context.resolve(schema.$ref), context, name, depth);
  if (depth >= DEEP) return validArbitrary(schema, context, name, depth);
  return fc.oneof(
    { weight: 6, arbitrary: validArbitrary(schema, context, name, depth) },
    { weight: 3, arbitrary: invalidArbitrary(schema, context, name, depth) },
  );
}

export function validArbitrary(
  schema: JsonSchema,
  context: SchemaContext,
  name: string,
  depth: number,
): fc.Arbitrary<unknown> {
  if (schema.$ref !== undefined) return validArbitrary(context.resolve(schema.$ref), context, name, depth);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((s) => schemaArbitrary(s, context, name, depth + 1)));
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const pool = context.poolOf(name);
  const types = typesOf(schema);
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'null':
          return fc.constant(null);
        case 'boolean':
          return fc.boolean();
        case 'integer':
        case 'number': {
          const range = fc.integer({
            min: Math.max(schema.minimum ?? -1_000_000, -1_000_000),
            max: Math.min(schema.maximum ?? 1_000_000, 1_000_000),
          });
          return pool === undefined ? range : fc.nat().map((pick) => new Known(pool, pick, 'number'));
        }
        case 'string':
          return pool !== undefined ? fc.nat().map((pick) => new Known(pool, pick)) : stringArbitrary(schema);
        case 'array':
          return fc.array(
            schema.items === undefined
              ? fc.jsonValue({ maxDepth: 1 })
              : schemaArbitrary(schema.items, context, `${name}[]`, depth + 1),
            { maxLength: Math.min(schema.maxItems ?? 3, 3) },
          );
        case 'object':
          return objectArbitrary(schema, context, depth);
        default:
          return fc.jsonValue({ maxDepth: 1 });
      }
    }),
  );
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.pattern !== undefined) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length <= (schema.maxLength ?? Infinity));
  }
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  return fc.string({ minLength: Math.min(schema.minLength ?? 0, maxLength), maxLength, unit: 'grapheme' });
}

function objectArbitrary(schema: JsonSchema, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const known = fc.record(
    Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [
        key,
        schemaArbitrary(value, context, key, depth + 1),
      ]),
    ),
    { requiredKeys: (schema.required ?? []).filter((key) => key in properties) },
  );
  const extra = schema.additionalProperties;
  if (typeof extra === 'object') {
    return fc
      .tuple(
        known,
        fc.dictionary(fc.string({ maxLength: 10 }), schemaArbitrary(extra, context, '', depth + 1), {
          maxKeys: 3,
        }),
      )
      .map(([fields, more]) => ({ ...more, ...fields }));
  }
  return known;
}

/** What the schema refuses, shaped like what it accepts: the mistakes clients actually make. */
function invalidArbitrary(
  schema: JsonSchema,
  context: SchemaContext,
  name: string,
  depth: number,
): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  const hostile: fc.Arbitrary<unknown>[] = [wrongType()];
  if (types.includes('string') || types.length === 0) hostile.push(hostileString(schema.maxLength));
  if (types.includes('integer') || types.includes('number')) {
    hostile.push(hostileNumber(schema.minimum, schema.maximum));
  }
  if (types.includes('array') && schema.items !== undefined) {
    const items = schema.items;
    hostile.push(
      fc.array(invalidArbitrary(items, context, `${name}[]`, depth + 1), { minLength: 1, maxLength: 3 }),
    );
    if (schema.maxItems !== undefined) {
      const count = schema.maxItems + 1;
      hostile.push(
        validArbitrary(items, context, `${name}[]`, DEEP).map((item) =>
          Array.from({ length: count }, () => item),
        ),
      );
    }
  }
  if (types.includes('object') || schema.properties !== undefined) {
    const valid = objectArbitrary(schema, context, depth) as fc.Arbitrary<Record<string, unknown>>;
    const keys = Object.keys(schema.properties ?? {});
    hostile.push(
      // An unknown key, some of them hostile in themselves.
      fc
        .tuple(valid, hostileKey(), wrongType(0))
        .map(([object, key, value]) => ({ ...object, [key]: value })),
      // A required key missing.
      fc.tuple(valid, fc.constantFrom(...(schema.required ?? ['-']))).map(([object, key]) => {
        const { [key]: _dropped, ...rest } = object;
        return rest;
      }),
      // The object in an array, where a client confused one for many.
      valid.map((object) => [object]),
    );
    if (keys.length > 0) {
      hostile.push(
        fc.tuple(valid, fc.constantFrom(...keys), hostileString()).map(([object, key, value]) => ({
          ...object,
          [key]: value,
        })),
      );
    }
  }
  return fc.oneof(...hostile);
}
