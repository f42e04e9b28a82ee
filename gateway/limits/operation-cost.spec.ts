import { readFileSync } from 'node:fs';
import { buildASTSchema, buildSchema, parse, type GraphQLSchema } from 'graphql';
import { loadConfig } from '../../common/config';
import { SUPERGRAPH_FILE } from '../../common/paths';
import { CostModel, describeHeaviest, estimateCost } from './operation-cost';
import { costError } from './query-limits';

/** The composed supergraph as a plain schema: its types and fields are what the gateway serves. */
function supergraph(): { schema: GraphQLSchema; model: CostModel } {
  const sdl = readFileSync(SUPERGRAPH_FILE(), 'utf8');
  return {
    schema: buildASTSchema(parse(sdl), { assumeValid: true, assumeValidSDL: true }),
    model: CostModel.fromSupergraph(sdl),
  };
}

describe('the estimate from the subgraphs’ declared list sizes, by hand', () => {
  const { schema, model } = supergraph();
  const estimate = (query: string, variables: Record<string, unknown> = {}) =>
    estimateCost(schema, model, parse(query), variables, undefined);

  it('reads the declared sizes from the composed supergraph', () => {
    expect(model.listSizeOf('Query', 'myVenues')).toEqual({
      assumedSize: 10,
      slicingArguments: [],
      sizedFields: [],
    });
    // A venue's caps (VENUE_CAPS), so no venue's list outgrows the size it declares.
    expect(model.listSizeOf('Venue', 'branches')?.assumedSize).toBe(50);
    expect(model.listSizeOf('Venue', 'members')?.assumedSize).toBe(150);
    expect(model.listSizeOf('Venue', 'boardDevices')?.assumedSize).toBe(100);
    expect(model.listSizeOf('Venue', 'displays')?.assumedSize).toBe(100);
    // SESSIONS_PER_PERSON.
    expect(model.listSizeOf('User', 'sessions')?.assumedSize).toBe(30);
    expect(model.listSizeOf('Query', 'tickets')).toEqual({
      slicingArguments: ['perPage'],
      sizedFields: ['items'],
    });
    expect(model.listSizeOf('WebhookDelivery', 'attemptLog')?.slicingArguments).toEqual(['last']);
    expect(model.listSizeOf('Query', 'plans')).toBeUndefined();
    // A CV export renders in Chromium: it weighs a hundred fields.
    expect(model.weightOf('Mutation', 'exportCv')).toBe(100);
    expect(model.weightOf('Query', 'myVenues')).toBe(1);
  });

  it('weighs the README’s own example: 1 + 10 × (3 + plan 2 + branches (1 + 50 × 1)) = 561', () => {
    const { cost, heaviest } = estimate('{ myVenues { id name viewerRole plan { key } branches { name } } }');
    expect(cost).toBe(1 + 10 * (3 + 2 + (1 + 50 * 1)));
    expect(describeHeaviest(heaviest)).toBe('myVenues.branches: 10 × 50');
  });

  it('counts a page by its slicing argument, its default when not given, on the sized list only', () => {
    // tickets: 1 + (total 1 + items (1 + perPage × 2))
    expect(estimate('{ tickets(perPage: 10) { total items { id number } } }').cost).toBe(
      1 + (1 + (1 + 10 * 2)),
    );
    expect(estimate('{ tickets { total items { id number } } }').cost).toBe(1 + (1 + (1 + 15 * 2)));
    // auditLog's first defaults to 20: myVenues 1 + 10 × (auditLog 1 + (items 1 + 20 × 1) + endCursor 1)
    expect(estimate('{ myVenues { auditLog { items { id } endCursor } } }').cost).toBe(
      1 + 10 * (1 + (1 + 20 * 1) + 1),
    );
    expect(estimate('query ($n: Int!) { tickets(perPage: $n) { items { id } } }', { n: 40 }).cost).toBe(
      1 + (1 + 40),
    );
  });

  it('weighs an insights field’s buckets by the range and bucket size it asks for', () => {
    const query = (to: string, bucket: string) =>
      `{ branch(id: "1") { insights(from: "2026-10-01T00:00:00Z", to: "${to}", bucket: ${bucket}) { totals { created } buckets { start created prepP50Seconds } } } }`;
    // branch 1 + (insights 200 + totals 1 + (buckets 1 + n × 1)): a bucket weighs 1 whatever it selects.
    const cost = (n: number) => 1 + (200 + 1 + (1 + n * 1));
    // 30 days by the hour: 720 hours, and one more for a range off the hour.
    expect(estimate(query('2026-10-31T00:00:00Z', 'HOUR')).cost).toBe(cost(721));
    expect(estimate(query('2026-10-31T00:00:00Z', 'DAY')).cost).toBe(cost(31));
    expect(
      estimate(
        'query ($from: DateTimeISO!, $to: DateTimeISO!) { venue(id: "1") { insights(from: $from, to: $to, bucket: DAY) { buckets { created } } } }',
        { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' },
      ).cost,
    ).toBe(1 + (200 + (1 + 366 * 1)));
    // Past the most a range may ask for, the subgraph's own refusal names the range.
    expect(estimate(query('2030-10-01T00:00:00Z', 'HOUR')).cost).toBe(cost(1_000));
  });

  it('weighs what reads much by the reads it does, from the weights the subgraphs declared', () => {
    // The board's wait and a customer's estimate: one statement over the branch's recent tickets.
    expect(model.weightOf('Branch', 'wait')).toBe(50);
    expect(model.weightOf('PublicTicket', 'estimatedReadyAt')).toBe(50);
    expect(model.weightOf('Branch', 'insights')).toBe(200);
    expect(model.weightOf('Venue', 'insights')).toBe(200);
    // A search reads every ticket of the branch in the range: counted where it is given.
    expect(model.givenWeightOf('TicketFilter.search')).toBe(5_000);
    expect(model.givenWeightOf('TicketFilter.status')).toBe(0);
    expect(model.slicingArgumentNames().has('filter')).toBe(true);
  });

  it('refuses the probe that read insights 4,515 times: 15 aliases of a venue’s branches, naming the path', () => {
    const insights = `insights(from: "2026-10-01T00:00:00Z", to: "2026-10-27T00:00:00Z", bucket: DAY) {
      totals { created ready collected cancelled prepP50Seconds prepP90Seconds pickupP50Seconds feedbackCount feedbackAverage }
      buckets { start created ready collected cancelled prepP50Seconds prepP90Seconds pickupP50Seconds linked rings smsSent } }`;
    const aliased = (field: string) =>
      `{ venue(id: "1") { ${Array.from({ length: 15 }, (_, i) => `a${i + 1}: branches { ${field} }`).join(' ')} } }`;
    const limit = loadConfig({}).graphqlLimits.maxCost;

    const found = estimate(aliased(insights));
    // venue 1 + 15 × branches (1 + 50 × insights (200 + totals 1 + buckets (1 + 27 × 1)))
    expect(found.cost).toBe(1 + 15 * (1 + 50 * (200 + 1 + (1 + 27))));
    expect(found.cost).toBeGreaterThan(limit);
    expect(describeHeaviest(found.heaviest)).toBe('venue.a1.insights.buckets: 50 × 27');

    const waits = estimate(
      aliased('wait { waiting oldestWaitingSince medianWaitSeconds readyLastHour alertMinutes alert }'),
    );
    // venue 1 + 15 × branches (1 + 50 × wait (50 + 6))
    expect(waits.cost).toBe(1 + 15 * (1 + 50 * (50 + 6)));
    expect(waits.cost).toBeGreaterThan(limit);
    expect(describeHeaviest(waits.heaviest)).toBe('venue.a1: 50');

    // One branch's insights, or every branch's wait once, as the panel asks, still fit.
    expect(estimate(`{ branch(id: "1") { ${insights} } }`).cost).toBe(1 + (200 + 1 + (1 + 27)));
    // venue 1 + branches (1 + 50 × wait (50 + 2))
    expect(estimate('{ venue(id: "1") { branches { wait { waiting alert } } } }').cost).toBe(
      1 + (1 + 50 * (50 + 2)),
    );
  });

  it('adds a search’s weight where one is given, in the document or in its variables, and nothing otherwise', () => {
    const page = 'items { id number }';
    // tickets 1 + (items 1 + 15 × 2): the default page.
    const plain = 1 + (1 + 15 * 2);
    expect(estimate(`{ tickets { ${page} } }`).cost).toBe(plain);
    expect(estimate(`{ tickets(filter: { status: WAITING }) { ${page} } }`).cost).toBe(plain);
    expect(estimate(`{ tickets(filter: { search: "huda" }) { ${page} } }`).cost).toBe(plain + 5_000);
    const withVariables = `query ($f: TicketFilter) { tickets(filter: $f) { ${page} } }`;
    expect(estimate(withVariables, { f: { search: 'huda', status: 'WAITING' } }).cost).toBe(plain + 5_000);
    expect(estimate(withVariables, { f: { search: null } }).cost).toBe(plain);
    expect(estimate(withVariables, {}).cost).toBe(plain);
    expect(
      estimate(`query ($q: String) { tickets(filter: { search: $q }) { ${page} } }`, { q: 'x' }).cost,
    ).toBe(plain + 5_000);
    // Two searches in one operation are over the limit, whatever they select.
    const two = estimate(
      '{ a: tickets(filter: { search: "a" }) { total } b: tickets(filter: { search: "b" }) { total } }',
    );
    expect(two.cost).toBeGreaterThan(loadConfig({}).graphqlLimits.maxCost);
  });

  it('multiplies nested paged lists, so a query that asks for a million attempts stays refused', () => {
    const found = estimate(
      '{ myVenues { webhookEndpoints(first: 100) { deliveries(first: 100) { attemptLog(last: 100) { statusCode } } } } }',
    );
    // attemptLog 1 + 100 × 1; deliveries 1 + 100 × 101; webhookEndpoints 1 + 100 × 10,101; myVenues 1 + 10 × …
    const attempts = 1 + 100 * 1;
    const deliveries = 1 + 100 * attempts;
    const endpoints = 1 + 100 * deliveries;
    expect(found.cost).toBe(1 + 10 * endpoints);
    expect(describeHeaviest(found.heaviest)).toBe(
      'myVenues.webhookEndpoints.deliveries.attemptLog: 10 × 100 × 100 × 100',
    );
    const limits = loadConfig({}).graphqlLimits;
    expect(found.cost).toBeGreaterThan(limits.maxCost);
  });

  it('keeps an undeclared list at 100 items, and weighs introspection once', () => {
    expect(estimate('{ plans { key name } }').cost).toBe(1 + 100 * 2);
    expect(estimate('{ __schema { types { name fields { name args { name } } } } }').cost).toBe(
      1 + (1 + 1 + (1 + 1 + (1 + 1))),
    );
  });

  it('counts an introspection list asked again below itself as data, so the schema cannot be walked over and over', () => {
    // types and the first fields once; the second fields 100 × its selection.
    expect(estimate('{ __schema { types { fields { type { fields { name } } } } } }').cost).toBe(
      1 + (1 + (1 + (1 + (1 + 100 * 1)))),
    );
    const walked = `{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }`;
    expect(estimate(walked).cost).toBeGreaterThan(loadConfig({}).graphqlLimits.maxCost);
  });

  it('names the estimate, the limit and the heaviest path in the refusal, and in its extensions', () => {
    const found = estimate('{ myVenues { members { role } branches { name } } }');
    // myVenues 1 + 10 × (members (1 + 150 × 1) + branches (1 + 50 × 1))
    expect(found.cost).toBe(1 + 10 * (1 + 150 + (1 + 50)));
    const error = costError(found, { ...loadConfig({}).graphqlLimits, maxCost: 500 });
    expect(error.message).toBe(
      'Query cost limit of 500 exceeded, found 2021 (GRAPHQL_MAX_COST). It weighs most at myVenues.members: 10 × 150: ask that list for fewer items (first, last, perPage) or split the query.',
    );
    expect(error.extensions).toMatchObject({
      code: 'GRAPHQL_VALIDATION_FAILED',
      cost: { estimated: 2021, limit: 500, heaviestPath: 'myVenues.members', listSizes: [10, 150] },
    });
  });
});

describe('the estimate on a schema of its own: weights, sized fields, fragments, skipped fields', () => {
  const sdl = `
    type Query {
      feed(first: Int = 5): Page @listSize(slicingArguments: ["first"], sizedFields: ["entries"], requireOneSlicingArgument: false)
      tags: [String!]! @listSize(assumedSize: 3)
      report: String @cost(weight: 50)
      find(where: Where, deep: Boolean @cost(weight: 7)): [Entry!]! @listSize(assumedSize: 5)
    }
    input Where { text: String @cost(weight: 30) and: [Where!] }
    type Page { entries: [Entry!]! count: Int }
    type Entry { id: ID! title: String }
  `;
  const schema = buildSchema(sdl.replace(/@listSize\([^)]*\)|@cost\([^)]*\)/g, ''));
  const model = CostModel.fromSupergraph(sdl);
  const cost = (query: string, variables: Record<string, unknown> = {}) =>
    estimateCost(schema, model, parse(query), variables, undefined).cost;

  it('adds a declared weight instead of 1', () => {
    expect(cost('{ report }')).toBe(50);
  });

  it('adds the weight of an argument or an input field where it is given, at any depth, once per field', () => {
    // find 1 + 5 × 1, and what the given arguments add.
    const base = 1 + 5 * 1;
    expect(cost('{ find { id } }')).toBe(base);
    expect(cost('{ find(deep: true) { id } }')).toBe(base + 7);
    expect(cost('{ find(where: { text: "x" }) { id } }')).toBe(base + 30);
    expect(cost('{ find(where: { and: [{ text: "x" }, { text: "y" }] }) { id } }')).toBe(base + 60);
    expect(cost('query ($w: Where) { find(where: $w) { id } }', { w: { text: null } })).toBe(base);
  });

  it('gives a page’s size to its sized list, not to its other fields', () => {
    // feed 1 + (entries 1 + 5 × 2) + count 1
    expect(cost('{ feed { entries { id title } count } }')).toBe(1 + (1 + 5 * 2) + 1);
    expect(cost('{ feed(first: 50) { entries { id } } }')).toBe(1 + (1 + 50 * 1));
  });

  it('counts a scalar list by its assumed size', () => {
    expect(cost('{ tags }')).toBe(1 + 3 * 1);
  });

  it('follows fragments and leaves out what @skip and @include leave out', () => {
    const query = `query ($more: Boolean!) { feed { ...page count @include(if: $more) } }
      fragment page on Page { entries { ... on Entry { id } title @skip(if: $more) } }`;
    expect(cost(query, { more: true })).toBe(1 + (1 + 5 * 1) + 1);
    expect(cost(query, { more: false })).toBe(1 + (1 + 5 * 2));
  });

  it('refuses variables that do not fit their types, naming them as graphql-js does', () => {
    expect(() => cost('query ($n: Int) { feed(first: $n) { count } }', { n: 'many' })).toThrow(
      /Variable "\$n" got invalid value "many"/,
    );
  });
});
