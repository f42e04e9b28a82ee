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
import { loadConfig } from '../../common/config';
import { projectRoot, SUPERGRAPH_FILE } from '../../common/paths';
import { ADAPTER_OPERATIONS } from '../../rest-adapter/graph-client';
import '../../rest-adapter/rest-adapter';
import { CostModel, estimateCost } from './operation-cost';
import { cachedEstimateOf, parseWithinLimits, queryLimitRules } from './query-limits';

/** A string a public page's script declares (`var NAME = '…'`), which its documents are built from. */
async function declared(page: string, name: string): Promise<string> {
  const script = await readFile(join(projectRoot(), 'rest-adapter', 'public', 'assets', page), 'utf8');
  const value = new RegExp(`var ${name} = '([^']+)'`).exec(script)?.[1];
  if (value === undefined) throw new Error(`${page} no longer declares ${name}`);
  return value;
}

/**
 * The public pages' own documents, built as their scripts build them: the customer's page, the
 * staff board (a device or a member, who also picks a branch among their venues) and the display.
 */
async function pageOperations(): Promise<{ name: string; document: string }[]> {
  const page = await declared('page.js', 'FIELDS');
  const board = await declared('board.js', 'FIELDS');
  const wait = await declared('board.js', 'WAIT');
  const display = await declared('display.js', 'FIELDS');
  const venues = Array.from(
    { length: 15 },
    (_, i) => `v${i}: venue(id: "${i}") { name branches { id name } }`,
  ).join(' ');
  return [
    {
      name: 'page subscription',
      document: `subscription ($t: String!) { ticketUpdated(token: $t) { ${page} } }`,
    },
    {
      name: 'page refetch',
      document: `query ($t: String!) { ticketByToken(token: $t) { ${page} estimatedReadyAt } }`,
    },
    { name: 'board subscription', document: `subscription { branchTicketsUpdated { ${board} } }` },
    {
      name: 'board start',
      document: `query { currentBranch { name ${wait} } waiting: tickets(perPage: 100, filter: { status: WAITING }) { items { ${board} } } ready: tickets(perPage: 100, filter: { status: READY }) { items { ${board} } } }`,
    },
    { name: 'board wait', document: `query { currentBranch { ${wait} } }` },
    { name: 'board venues', document: 'query { myVenues { id name } }' },
    { name: 'board branches, as many venues as aliases allow', document: `query { ${venues} }` },
    {
      name: 'board move',
      document: `mutation ($id: ID) { markTicketReady(id: $id) { ${board} } }`,
    },
    {
      name: 'board create',
      document: `mutation ($i: CreateTicketInput!) { createTicket(input: $i) { ticket { ${board} } } }`,
    },
    {
      name: 'display refetch',
      document: `query ($t: String!) { displayBoard(token: $t) { name venueName branchName language chime speech readyMinutes tickets { ${display} } } }`,
    },
    {
      name: 'display subscription',
      document: `subscription ($t: String!) { displayTicketsUpdated(token: $t) { ${display} } }`,
    },
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

  it('remembers a document’s cost apart for a filter with a search and one without', () => {
    const document = parse('query ($f: TicketFilter) { tickets(filter: $f) { total } }');
    const without = cachedCostOf(document, { f: { status: 'WAITING' } });
    const searching = cachedCostOf(document, { f: { status: 'WAITING', search: 'huda' } });
    expect(searching).toBe(costOf(document, { f: { search: 'huda' } }));
    // TICKET_SEARCH_COST.
    expect(searching).toBe(without + 5_000);
    expect(cachedCostOf(document, {})).toBe(without);
  });

  it('lets the REST adapter’s list through with a search at its largest page', () => {
    const list = ADAPTER_OPERATIONS.find(({ name }) => name === 'Tickets');
    if (list === undefined) throw new Error('the adapter no longer sends Tickets');
    const document = parseWithinLimits(list.document, limits);
    expect(costOf(document, { filter: { search: 'huda' }, page: 1, perPage: 100 })).toBeLessThanOrEqual(
      limits.maxCost,
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
