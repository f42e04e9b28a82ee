import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApolloGateway } from '@apollo/gateway';
import {
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  parse,
  specifiedRules,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { loadConfig } from '../common/config';
import { projectRoot, SUPERGRAPH_FILE } from '../common/paths';
import { ADAPTER_OPERATIONS } from '../rest-adapter/graph-client';
import '../rest-adapter/rest-adapter';
import { CostModel, estimateCost } from './operation-cost';
import { cachedEstimateOf, parseWithinLimits, queryLimitRules } from './query-limits';

/** The page's own documents over graphql-ws, built as page.js builds them. */
async function pageOperations(): Promise<{ name: string; document: string }[]> {
  const script = await readFile(join(projectRoot(), 'rest-adapter', 'public', 'assets', 'page.js'), 'utf8');
  const fields = /var FIELDS = '([^']+)'/.exec(script)?.[1];
  if (fields === undefined) throw new Error('page.js no longer declares FIELDS');
  return [
    {
      name: 'page subscription',
      document: `subscription ($t: String!) { ticketUpdated(token: $t) { ${fields} } }`,
    },
    { name: 'page refetch', document: `query ($t: String!) { ticketByToken(token: $t) { ${fields} } }` },
  ];
}

/** A value of the type with every required field filled, and page sizes at their largest. */
function sampleOf(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return sampleOf(type.ofType);
  if (isListType(type)) return [];
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0]?.value;
  if (isInputObjectType(named)) {
    return Object.fromEntries(
      Object.values(named.getFields())
        .filter((field) => isNonNullType(field.type))
        .map((field) => [field.name, sampleOf(field.type)]),
    );
  }
  return { Int: 100, Float: 1, Boolean: false }[named.name] ?? '1';
}

/** Variables for every variable an operation declares. */
function sampleVariables(schema: GraphQLSchema, document: DocumentNode): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      const type = typeFromAST(schema, variable.type) as GraphQLInputType | undefined;
      if (type !== undefined) variables[variable.variable.name.value] = sampleOf(type);
    }
  }
  return variables;
}

describe('the gateway’s default bounds hold every operation the platform itself sends', () => {
  const limits = loadConfig({}).graphqlLimits;
  let schema: GraphQLSchema;
  let model: CostModel;
  let gateway: ApolloGateway;

  beforeAll(async () => {
    process.env.APOLLO_TELEMETRY_DISABLED = 'true';
    const supergraphSdl = await readFile(SUPERGRAPH_FILE(), 'utf8');
    model = CostModel.fromSupergraph(supergraphSdl);
    gateway = new ApolloGateway({ supergraphSdl });
    schema = (await gateway.load()).schema;
  });

  const costOf = (document: DocumentNode, variables: Record<string, unknown>) =>
    estimateCost(schema, model, document, variables, undefined).cost;
  const cachedCostOf = (document: DocumentNode, variables: Record<string, unknown>) =>
    cachedEstimateOf(schema, model, document, variables, undefined).cost;

  afterAll(async () => {
    await gateway.stop();
  });

  it('finds the adapter’s operations', () => {
    expect(ADAPTER_OPERATIONS.length).toBeGreaterThanOrEqual(25);
  });

  it('keeps each within depth, aliases, tokens, directives and cost, at the largest page', async () => {
    const costs: Record<string, number> = {};
    for (const { name, document } of [...ADAPTER_OPERATIONS, ...(await pageOperations())]) {
      const parsed = parseWithinLimits(document, limits);
      expect({
        name,
        errors: validate(schema, parsed, [...specifiedRules, ...queryLimitRules(limits)]),
      }).toEqual({
        name,
        errors: [],
      });
      costs[name] = costOf(parsed, sampleVariables(schema, parsed));
    }
    const heaviest = Math.max(...Object.values(costs));
    // Room for the operations to grow, but not so much that the limit stops meaning anything.
    expect(heaviest).toBeLessThanOrEqual(limits.maxCost);
    expect(heaviest * 3).toBeGreaterThan(limits.maxCost);
  });

  it('remembers a document’s cost by the variables it depends on, and only those', () => {
    const document = parse(
      'query ($n: Int!, $id: ID!, $more: Boolean!) { ticket(id: $id) { id } tickets(perPage: $n) { items { id number branch @include(if: $more) { name } } } }',
    );
    for (const variables of [
      { n: 100, id: '1', more: true },
      { n: 10, id: '2', more: true },
      { n: 100, id: '3', more: false },
      { n: 100, id: '4', more: true },
    ]) {
      expect(cachedCostOf(document, variables)).toBe(costOf(document, variables));
    }
    expect(cachedCostOf(document, { n: 100, id: '1', more: true })).toBeGreaterThan(
      cachedCostOf(document, { n: 10, id: '1', more: true }),
    );
  });

  it('weighs a list by its page size', () => {
    const page = (perPage: number) =>
      costOf(parse('query ($n: Int!) { tickets(perPage: $n) { items { id number } } }'), { n: perPage });
    expect(page(100)).toBeGreaterThan(page(10) * 9);
  });

  it('lets through the standard introspection query with its options, weighed once', () => {
    const text = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    const document = parseWithinLimits(text, limits);
    expect(validate(schema, document, [...specifiedRules, ...queryLimitRules(limits)])).toEqual([]);
    const cost = costOf(document, {});
    expect(cost).toBeLessThanOrEqual(limits.maxCost);
    // Every field it selects counts once: the fragments' fields are the weight, not the schema's size.
    expect(cost).toBeLessThan(500);
  });
});
