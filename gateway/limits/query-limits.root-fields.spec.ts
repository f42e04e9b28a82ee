import { buildSchema, getOperationAST, parse, specifiedRules, validate } from 'graphql';
import { maxMutationFieldsRule, workUnitsOf } from './query-limits';

const schema = buildSchema(`
  type Ticket { id: ID! number: Int! }
  type Query { ticket(id: ID!): Ticket plans: [String!]! }
  type Mutation { createTicket(name: String): Ticket! ring(id: ID!): Boolean! }
`);

function unitsOf(source: string, operationName?: string): number {
  const document = parse(source);
  return workUnitsOf(document, getOperationAST(document, operationName)!);
}

describe('an operation’s work: one unit per root field', () => {
  it('counts each aliased root field, through fragments, and a field asked twice under one key once', () => {
    expect(unitsOf('{ ticket(id: 1) { id } }')).toBe(1);
    expect(unitsOf('{ a: ticket(id: 1) { id } b: ticket(id: 2) { id } plans }')).toBe(3);
    const creates = Array.from({ length: 15 }, (_, i) => `c${i}: createTicket(name: "${i}") { id }`).join(
      ' ',
    );
    expect(unitsOf(`mutation { ${creates} }`)).toBe(15);
    expect(
      unitsOf(
        'query { ...F ... on Query { plans b: plans } ticket(id: 1) { id } } fragment F on Query { ticket(id: 1) { number } x: plans }',
      ),
    ).toBe(4);
    // __typename reads nothing; an operation still costs at least one.
    expect(unitsOf('{ __typename }')).toBe(1);
    expect(unitsOf('query A { plans } mutation B { a: ring(id: 1) b: ring(id: 2) }', 'B')).toBe(2);
  });

  it('stops at a fragment spread twice or in a cycle, leaving the cycle to graphql-js', () => {
    expect(
      unitsOf('{ ...F ...F } fragment F on Query { plans ...G } fragment G on Query { ...F x: plans }'),
    ).toBe(2);
  });
});

describe('GRAPHQL_MAX_MUTATION_FIELDS', () => {
  const rules = [...specifiedRules, maxMutationFieldsRule(15)];
  const creates = (n: number) => Array.from({ length: n }, (_, i) => `c${i}: createTicket { id }`).join(' ');

  it('lets a mutation of 15 root fields through and refuses 16, naming the limit and the count', () => {
    expect(validate(schema, parse(`mutation { ${creates(15)} }`), rules)).toEqual([]);
    const errors = validate(
      schema,
      parse(`mutation { ${creates(14)} ...M } fragment M on Mutation { r: ring(id: 1) s: ring(id: 2) }`),
      rules,
    );
    expect(errors.map((error) => error.message)).toEqual([
      'A mutation may have at most 15 root fields, aliases counting (GRAPHQL_MAX_MUTATION_FIELDS); this one has 16. Send the rest in another operation.',
    ]);
  });

  it('leaves queries to the alias and cost limits', () => {
    const reads = Array.from({ length: 20 }, (_, i) => `t${i}: ticket(id: ${i}) { id }`).join(' ');
    expect(validate(schema, parse(`{ ${reads} }`), rules)).toEqual([]);
  });
});
