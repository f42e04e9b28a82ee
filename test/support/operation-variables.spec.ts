import { buildSchema, parse } from 'graphql';
import { variablesFor } from './operation-variables';

const schema = buildSchema(`
  scalar DateTimeISO
  enum Status { WAITING READY }
  input Filter { status: Status, from: DateTimeISO }
  input CreateBranchInput { venueId: ID!, name: String!, note: String, size: Int! = 3 }
  type Branch { id: ID! }
  type Page { items: [Branch!]! }
  type Venue { id: ID!, auditLog(first: Int! = 20, after: String): Page! }
  type Query { venue(id: ID!): Venue!, tickets(perPage: Int! = 15, filter: Filter): Page! }
  type Mutation { createBranch(input: CreateBranchInput!): Branch! }
`);

const KNOWN: Record<string, unknown> = {
  'Query.venue.id': '7',
  'CreateBranchInput.venueId': '7',
  'Venue.auditLog.after': 'cursor-1',
};
const known = (coordinate: string) => KNOWN[coordinate];

describe('variables for an operation the test did not write', () => {
  it('fills ids and cursors from the objects the test made, by where each variable is used', () => {
    const document = parse(
      'query ($v: ID!, $a: String) { venue(id: $v) { auditLog(after: $a) { items { id } } } }',
    );
    expect(variablesFor(schema, document, known)).toEqual({ v: '7', a: 'cursor-1' });
  });

  it('gives a page size its argument’s default, and a whole input its required fields', () => {
    const document = parse(`
      query Page($n: Int!, $f: Filter) { tickets(perPage: $n, filter: $f) { items { id } } }
      mutation Create($i: CreateBranchInput!) { createBranch(input: $i) { id } }
    `);
    expect(variablesFor(schema, document, known)).toEqual({
      n: 15,
      f: {},
      i: { venueId: '7', name: 'sample' },
    });
  });

  it('reads a variable inside an input literal as that input field', () => {
    const document = parse(
      'mutation ($v: ID!, $s: Status) { createBranch(input: { venueId: $v, name: "x" }) { id } }',
    );
    expect(variablesFor(schema, document, known)).toEqual({ v: '7', s: 'WAITING' });
  });

  it('keeps the values a doc shows over generated ones', () => {
    const document = parse('query ($v: ID!) { venue(id: $v) { id } }');
    expect(variablesFor(schema, document, known, { v: '42' })).toEqual({ v: '42' });
  });
});
