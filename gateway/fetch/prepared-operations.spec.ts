import { readFileSync } from 'node:fs';
import { operationFromDocument, Supergraph } from '@apollo/federation-internals';
import type { GraphQLDataSource } from '@apollo/gateway';
// The gateway's own result shaping, the reference a single fetch's answer must already equal.
import { computeResponse } from '@apollo/gateway/dist/resultShaping';
import { QueryPlanner } from '@apollo/query-planner';
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  validate,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { SUPERGRAPH_FILE } from '../../common/paths';
import { TICKET_BY_ID } from '../../rest-adapter/tickets/tickets.operations';
import { inlined, reshapedBySupergraph, singleFetchOf } from './prepared-operations';

const sdl = readFileSync(SUPERGRAPH_FILE(), 'utf8');
const supergraph = Supergraph.build(sdl);
const planner = new QueryPlanner(supergraph);
const api = supergraph.apiSchema().toGraphQLJSSchema();
const reshaped = reshapedBySupergraph(sdl);
const dataSource: GraphQLDataSource = { process: () => Promise.reject(new Error('not sent in this test')) };
const serviceMap = { tickets: dataSource, cv: dataSource, billing: dataSource, identity: dataSource };

function prepare(query: string) {
  const document = parse(query, { noLocation: true });
  const errors = validate(api, document);
  if (errors.length > 0) return undefined;
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)!;
  const plan = planner.buildQueryPlan(operationFromDocument(supergraph.apiSchema(), document));
  return { document, operation, plan };
}

function single(query: string, reshapedBy: ReadonlySet<string> = reshaped) {
  const prepared = prepare(query);
  if (prepared === undefined) throw new Error(`not a valid operation: ${query}`);
  return singleFetchOf(prepared.plan, serviceMap, { ...prepared, schema: api }, reshapedBy);
}

describe('which plans the gateway answers with their one fetch’s answer as it stands', () => {
  it('takes a ticket by id and a ticket create, which one subgraph answers whole', () => {
    expect(single('query ($id: ID!) { ticket(id: $id) { id status externalId } }')).toMatchObject({
      subgraph: 'tickets',
      query: 'query($id:ID!){ticket(id:$id){id status externalId}}',
      variableUsages: ['id'],
    });
    expect(
      single(
        'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id status } } }',
      ),
    ).toMatchObject({ subgraph: 'tickets', variableUsages: ['input'] });
    expect(single('query T($id: ID!) { t: ticket(id: $id) { __typename a: id id } }')).not.toBeNull();
    expect(single('{ plans { key name } }')).toMatchObject({ subgraph: 'billing' });
  });

  it('takes fragments, named or inline, as the fields they stand for', () => {
    expect(
      single('query ($id: ID!) { ticket(id: $id) { ...F } } fragment F on Ticket { id status }'),
    ).toMatchObject({ subgraph: 'tickets', variableUsages: ['id'] });
    expect(single('query ($id: ID!) { ticket(id: $id) { id ... on Ticket { status } } }')).not.toBeNull();
    // The REST adapter's reads, as every POS sends them.
    expect(single(TICKET_BY_ID.document)).toMatchObject({ subgraph: 'tickets' });
    expect(inlined(parse('query { a { ...F b } } fragment F on A { c ... { d } }'))).toMatchObject({
      selectionSet: { selections: [{ name: { value: 'a' }, selectionSet: { selections: [{}, {}, {}] } }] },
    });
  });

  it('leaves to the executor what it would reshape or gather', () => {
    // Two subgraphs.
    expect(single('{ me { id plan { key } } }')).toBeNull();
    // Directives, on a field, a spread or a fragment: shaping evaluates them itself.
    expect(
      single('query ($id: ID!, $s: Boolean!) { ticket(id: $id) { id status @include(if: $s) } }'),
    ).toBeNull();
    expect(
      single(
        'query ($id: ID!, $s: Boolean!) { ticket(id: $id) { ...F @skip(if: $s) } } fragment F on Ticket { id }',
      ),
    ).toBeNull();
    expect(
      single('query ($id: ID!, $s: Boolean!) { ticket(id: $id) { id ... @include(if: $s) { status } } }'),
    ).toBeNull();
    // Two operations in one document.
    const first = prepare('query A($id: ID!) { ticket(id: $id) { id } }')!;
    const both = parse('query A($id: ID!) { ticket(id: $id) { id } } query B { plans { key } }');
    expect(
      singleFetchOf(first.plan, serviceMap, { ...first, document: both, schema: api }, reshaped),
    ).toBeNull();
    // Introspection, which the gateway answers itself.
    expect(single('query ($id: ID!) { ticket(id: $id) { id } __typename }')).toBeNull();
    // A field or enum the supergraph says a subgraph answers differently.
    expect(
      single('query ($id: ID!) { ticket(id: $id) { id status } }', new Set(['TicketStatus'])),
    ).toBeNull();
    expect(single('query ($id: ID!) { ticket(id: $id) { id note } }', new Set(['Ticket.note']))).toBeNull();
    expect(
      single('query ($id: ID!) { ticket(id: $id) { id status } }', new Set(['Ticket.note'])),
    ).not.toBeNull();
  });

  it('reads from a supergraph the fields typed otherwise in a subgraph and the enums with hidden values', () => {
    const found = reshapedBySupergraph(`
      enum Colour { RED @inaccessible GREEN }
      enum Size { S M }
      type Shirt { id: ID! colour: Colour size: Size! @join__field(graph: A, type: "Size") label: String @join__field(graph: A) }
    `);
    expect([...found].sort()).toEqual(['Colour', 'Shirt.size']);
    // Nothing in today's supergraph.
    expect([...reshaped]).toEqual([]);
  });
});

/** A selection set over `type`, up to `depth` levels of objects, of fields taking no required argument. */
function selectionArbitrary(
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  depth: number,
): fc.Arbitrary<string> {
  const fields = Object.values(type.getFields()).filter(
    (field) => !field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined),
  );
  const leaves = fields.filter((field) => isLeafType(getNamedType(field.type)));
  const objects = depth > 0 ? fields.filter((field) => isObjectType(getNamedType(field.type))) : [];
  const leaf = fc.tuple(fc.constantFrom(...leaves.map((f) => f.name), '__typename'), fc.boolean());
  const entry: fc.Arbitrary<string | [string, boolean]> =
    objects.length === 0
      ? leaf
      : fc.oneof(
          leaf,
          fc
            .constantFrom(...objects)
            .chain((field) =>
              selectionArbitrary(schema, getNamedType(field.type) as GraphQLObjectType, depth - 1).map(
                (inner) => `${field.name} ${inner}`,
              ),
            ),
        );
  // `split`: where the selection's tail moves into an inline fragment (none at or past its end).
  return fc.tuple(fc.array(entry, { minLength: 1, maxLength: 5 }), fc.nat(8)).map(([entries, split]) => {
    const seen = new Set<string>();
    const parts: string[] = [];
    entries.forEach((e, index) => {
      if (typeof e === 'string') {
        // One of each object field: two would be merged, which the data below does not model.
        const name = e.split(' ')[0]!;
        if (seen.has(name)) return;
        seen.add(name);
        parts.push(e);
      } else parts.push(e[1] ? `x${index}: ${e[0]}` : e[0]);
    });
    if (split >= parts.length) return `{ ${parts.join(' ')} }`;
    const condition = split % 2 === 0 ? `on ${type.name} ` : '';
    return `{ ${parts.slice(0, split).join(' ')} ... ${condition}{ ${parts.slice(split).join(' ')} } }`;
  });
}

/** An answer a subgraph could give to `selectionSet` over `type`: any value each field's type allows. */
function answerArbitrary(
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
): fc.Arbitrary<Record<string, unknown>> {
  const entries: [string, fc.Arbitrary<unknown>][] = [];
  const names = new Set<string>();
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) throw new Error('only fields are generated');
    const responseName = selection.alias?.value ?? selection.name.value;
    if (names.has(responseName)) continue;
    names.add(responseName);
    if (selection.name.value === '__typename') {
      entries.push([responseName, fc.constant(type.name)]);
      continue;
    }
    const field = type.getFields()[selection.name.value]!;
    entries.push([responseName, valueArbitrary(schema, field.type, selection.selectionSet)]);
  }
  return fc.tuple(...entries.map(([, value]) => value)).map((values) => {
    const answer: Record<string, unknown> = {};
    entries.forEach(([name], index) => (answer[name] = values[index]));
    return answer;
  });
}

function valueArbitrary(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return presentArbitrary(schema, type.ofType, selectionSet);
  return fc.oneof(fc.constant(null), presentArbitrary(schema, type, selectionSet));
}

function presentArbitrary(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
): fc.Arbitrary<unknown> {
  if (isListType(type)) return fc.array(valueArbitrary(schema, type.ofType, selectionSet), { maxLength: 3 });
  if (isObjectType(type)) return answerArbitrary(schema, type, selectionSet!);
  if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((v) => v.name));
  switch (getNamedType(type).name) {
    case 'Int':
      return fc.integer();
    case 'Float':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'Boolean':
      return fc.boolean();
    default:
      return fc.string({ unit: 'grapheme', maxLength: 8 });
  }
}

describe('a single fetch’s answer is what the gateway’s result shaping would have made of it', () => {
  const roots = [
    { prefix: 'query ($id: ID!) { ticket(id: $id) ', type: api.getType('Ticket') as GraphQLObjectType },
    { prefix: 'query { currentBranch ', type: api.getType('Branch') as GraphQLObjectType },
    { prefix: 'query { myVenues ', type: api.getType('Venue') as GraphQLObjectType },
  ];

  it('for generated selections over tickets, branches and venues, with generated answers', () => {
    let taken = 0;
    let takenWithFragments = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...roots).chain((root) =>
          fc.tuple(selectionArbitrary(api, root.type, 2), fc.boolean()).map(([selection, named]) => ({
            root,
            query: named
              ? `${root.prefix}{ ...Root } } fragment Root on ${root.type.name} ${selection}`
              : `${root.prefix}${selection} }`,
          })),
        ),
        fc.infiniteStream(fc.integer()),
        ({ query }, seeds) => {
          const prepared = prepare(query);
          fc.pre(prepared !== undefined);
          const found = singleFetchOf(prepared.plan, serviceMap, { ...prepared, schema: api }, reshaped);
          if (found === null) return;
          taken += 1;
          if (query.includes('...')) takenWithFragments += 1;
          const subgraphOperation = inlined(parse(found.query))!;
          // The subgraph's answer to its operation, generated over the graph's types.
          const answers = answerArbitrary(api, api.getQueryType()!, subgraphOperation.selectionSet);
          const [data] = fc.sample(answers, { seed: seeds.next().value as number, numRuns: 1 });
          const operation = operationFromDocument(supergraph.apiSchema(), prepared.document);
          const shaped = computeResponse({
            operation,
            variables: { id: 't' },
            input: data,
            introspectionHandling: () => {
              throw new Error('no introspection in a single fetch');
            },
          });
          expect(shaped.errors).toEqual([]);
          expect(JSON.stringify(shaped.data)).toBe(JSON.stringify(data));
        },
      ),
      { numRuns: 300, seed: 28 },
    );
    // The property is not vacuous: most generated selections are answered by the tickets subgraph.
    expect(taken).toBeGreaterThan(100);
    expect(takenWithFragments).toBeGreaterThan(50);
  });
});
