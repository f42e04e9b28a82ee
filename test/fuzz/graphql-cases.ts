import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isRequiredArgument,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import {
  hostileKey,
  hostileNumber,
  hostileString,
  Known,
  Raw,
  wrongType,
  type PoolName,
} from './hostile-values';

/** One operation sent to the gateway, before the live values it names are looked up. */
export interface GraphCase {
  kind: 'graphql';
  /** Subscriptions go over a graphql-ws socket, everything else over HTTP. */
  operation: 'query' | 'mutation' | 'subscription';
  field: string;
  /** Arguments as variables (typed as the schema declares them) or written into the document. */
  args: { name: string; value: unknown; as: 'variable' | 'literal' | 'mistyped-variable' }[];
  credential: 'valid' | 'wrong' | 'none' | 'token';
  language?: string;
}

/** Which live records an argument names, by the field it belongs to and its own name. */
export type GraphPoolOf = (field: string, argument: string) => PoolName | undefined;

function inputArbitrary(
  type: GraphQLInputType,
  pool: PoolName | undefined,
  depth: number,
): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) {
    return fc.oneof(
      { weight: 12, arbitrary: inputArbitrary(type.ofType, pool, depth) },
      { weight: 1, arbitrary: fc.constant(null) },
    );
  }
  const nullable = (arbitrary: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 8, arbitrary }, { weight: 1, arbitrary: fc.constant(null) });
  if (isListType(type)) {
    return nullable(
      fc.oneof(
        fc.array(inputArbitrary(type.ofType, pool, depth + 1), { maxLength: 3 }),
        inputArbitrary(type.ofType, pool, depth + 1),
      ),
    );
  }
  if (isEnumType(type)) {
    return nullable(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...type.getValues().map((v) => v.name)) },
        { weight: 1, arbitrary: hostileString() },
        { weight: 1, arbitrary: wrongType(0) },
      ),
    );
  }
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const record = fc.record(
      Object.fromEntries(
        fields.map((f) => [f.name, inputArbitrary(f.type, pool ?? poolByName(f.name), depth + 1)]),
      ),
      { requiredKeys: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name) },
    ) as fc.Arbitrary<Record<string, unknown>>;
    if (depth > 3) return record;
    return nullable(
      fc.oneof(
        { weight: 6, arbitrary: record },
        {
          weight: 1,
          arbitrary: fc
            .tuple(record, hostileKey(), wrongType(0))
            .map(([object, key, value]) => ({ ...object, [key]: value })),
        },
        { weight: 1, arbitrary: record.map((object) => [object]) },
        { weight: 1, arbitrary: wrongType() },
      ),
    );
  }
  const known = pool === undefined ? [] : [fc.nat().map((pick) => new Known(pool, pick))];
  switch (getNamedType(type).name) {
    case 'Int':
      return nullable(
        fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: -5, max: 200 }) },
          { weight: 3, arbitrary: hostileNumber(-2147483648, 2147483647) },
          { weight: 1, arbitrary: wrongType(0) },
        ),
      );
    case 'Float':
      return nullable(fc.oneof(fc.double(), hostileNumber(), wrongType(0)));
    case 'Boolean':
      return nullable(
        fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: wrongType(0) }),
      );
    case 'ID':
      return nullable(
        fc.oneof(
          ...known.map((arbitrary) => ({ weight: 6, arbitrary })),
          { weight: 2, arbitrary: fc.integer({ min: -2, max: 1_000 }).map(String) },
          { weight: 2, arbitrary: hostileNumber().map((n) => (n instanceof Raw ? n.json : String(n))) },
          { weight: 1, arbitrary: fc.uuid() },
          { weight: 2, arbitrary: hostileString(100) },
          { weight: 1, arbitrary: hostileNumber(1) },
        ),
      );
    case 'DateTimeISO':
      return nullable(
        fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.constantFrom('2026-01-01', '+275760-09-13T00:00:00.000Z', '0000-01-01T00:00:00Z', 'yesterday'),
          hostileString(),
          wrongType(0),
        ),
      );
    case 'JSONObject':
      return nullable(
        fc.oneof(
          fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
          fc.dictionary(hostileKey(), wrongType(), { maxKeys: 3 }),
          fc.record({
            basics: fc.record({ name: hostileString(), email: hostileString() }, { requiredKeys: [] }),
          }),
          wrongType(0),
        ),
      );
    default:
      return nullable(
        fc.oneof(
          ...known.map((arbitrary) => ({ weight: 6, arbitrary })),
          { weight: 4, arbitrary: fc.string({ maxLength: 30, unit: 'grapheme' }) },
          { weight: 4, arbitrary: hostileString() },
          { weight: 1, arbitrary: wrongType(0) },
        ),
      );
  }
}

/** Names that address live records wherever they appear (an input's templateId, say). */
function poolByName(name: string): PoolName | undefined {
  if (name === 'templateId') return 'templateId';
  if (name === 'externalId') return 'externalId';
  return undefined;
}

function argumentCases(field: GraphQLField<unknown, unknown>, poolOf: GraphPoolOf) {
  return fc.tuple(
    ...field.args.map((arg: GraphQLArgument) =>
      fc.oneof(
        {
          weight: 12,
          arbitrary: fc.record({
            name: fc.constant(arg.name),
            value: inputArbitrary(arg.type, poolOf(field.name, arg.name), 0),
            as: fc.constantFrom<'variable' | 'literal'>('variable', 'variable', 'literal'),
          }),
        },
        // Left out (a required argument is refused by validation), or declared with the wrong type.
        { weight: isRequiredArgument(arg) ? 1 : 3, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.record({
            name: fc.constant(arg.name),
            value: wrongType(0),
            as: fc.constant<'mistyped-variable'>('mistyped-variable'),
          }),
        },
      ),
    ),
  );
}

/**
 * A case for every mutation, every query that takes arguments and every subscription, each as
 * likely as the others.
 */
export function graphCases(schema: GraphQLSchema, poolOf: GraphPoolOf): fc.Arbitrary<GraphCase>[] {
  const roots: [GraphCase['operation'], GraphQLField<unknown, unknown>][] = [
    ...Object.values(schema.getQueryType()?.getFields() ?? {})
      .filter((f) => f.args.length > 0)
      .map((f): ['query', GraphQLField<unknown, unknown>] => ['query', f]),
    ...Object.values(schema.getMutationType()?.getFields() ?? {}).map(
      (f): ['mutation', GraphQLField<unknown, unknown>] => ['mutation', f],
    ),
    ...Object.values(schema.getSubscriptionType()?.getFields() ?? {}).map(
      (f): ['subscription', GraphQLField<unknown, unknown>] => ['subscription', f],
    ),
  ];
  return roots.map(([operation, field]) =>
    fc
      .record({
        args: argumentCases(field, poolOf),
        credential: fc.oneof(
          { weight: 10, arbitrary: fc.constant<GraphCase['credential']>('valid') },
          { weight: 1, arbitrary: fc.constantFrom<GraphCase['credential']>('wrong', 'none', 'token') },
        ),
        language: fc.option(fc.constantFrom('ar', 'en', 'ar-IQ', 'ÿ'), { nil: undefined }),
      })
      .map(({ args, credential, language }): GraphCase => ({
        kind: 'graphql',
        operation,
        field: field.name,
        args: args.filter((a): a is NonNullable<typeof a> => a !== null),
        credential,
        ...(language === undefined ? {} : { language }),
      })),
  );
}

/** A GraphQL literal for a value; what GraphQL cannot write (a NUL in a name, say) fails to parse, as it should. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Raw) return value.graphql;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '1e999';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${literal(v)}`)
    .join(', ')}}`;
}

/** An enum's value is written bare in a document; anything else is a string literal and refused. */
function literalFor(type: GraphQLInputType, value: unknown): string {
  const named = getNamedType(type);
  if (isEnumType(named) && typeof value === 'string' && /^[_A-Za-z][_0-9A-Za-z]*$/.test(value)) return value;
  return literal(value);
}

/** The leaf fields of a return type that need no arguments, so a result is really produced. */
function selectionOf(field: GraphQLField<unknown, unknown>): string {
  const named = getNamedType(field.type);
  if (isLeafType(named) || !isObjectType(named)) return '';
  const leaves = Object.values(named.getFields())
    .filter((f) => isLeafType(getNamedType(f.type)) && f.args.every((a) => !isRequiredArgument(a)))
    .map((f) => f.name);
  return ` { __typename ${leaves.join(' ')} }`;
}

/** The document and variables of a case, with live values already in place. */
export function graphRequest(
  schema: GraphQLSchema,
  graphCase: GraphCase,
  resolved: { name: string; value: unknown; as: GraphCase['args'][number]['as'] }[],
): { query: string; variables: Record<string, unknown> } {
  const root = {
    query: schema.getQueryType(),
    mutation: schema.getMutationType(),
    subscription: schema.getSubscriptionType(),
  }[graphCase.operation];
  const field = root?.getFields()[graphCase.field];
  if (field === undefined) throw new Error(`no root field ${graphCase.field}`);
  const declarations: string[] = [];
  const variables: Record<string, unknown> = {};
  const written = resolved.map(({ name, value, as }) => {
    const arg = field.args.find((a) => a.name === name)!;
    if (as === 'literal') return `${name}: ${literalFor(arg.type, value)}`;
    const type = as === 'variable' ? String(arg.type) : isNonNullType(arg.type) ? 'Int' : 'Boolean';
    declarations.push(`$${name}: ${type}`);
    variables[name] = value;
    return `${name}: $${name}`;
  });
  const header = declarations.length === 0 ? '' : `(${declarations.join(', ')})`;
  const args = written.length === 0 ? '' : `(${written.join(', ')})`;
  return {
    query: `${graphCase.operation} Fuzz${header} { ${graphCase.field}${args}${selectionOf(field)} }`,
    variables,
  };
}
