import 'reflect-metadata';
import { internalCredentialHeaders } from '../../common/internal-credential';
import { startSubgraph, type RunningSubgraph } from '../../common/subgraph';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/support/database';
import { billingSubgraph } from './billing.subgraph';

describe('the billing subgraph over HTTP', () => {
  let database: TestDatabase;
  let subgraph: RunningSubgraph;
  let internalSecret: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = testConfig(database);
    internalSecret = config.internalSecret;
    subgraph = await startSubgraph(billingSubgraph, config);
  });

  afterAll(async () => {
    await subgraph.stop();
    await database.drop();
  });

  async function graphql(query: string, variables: Record<string, unknown> = {}) {
    const response = await fetch(`http://127.0.0.1:${subgraph.port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...internalCredentialHeaders(internalSecret) },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as {
      data?: Record<string, unknown>;
      errors?: { extensions?: { code?: string } }[];
    };
  }

  it('declares the catalogue public for a minute where every field asked allows it, and nothing else', async () => {
    const cacheControl = async (query: string) =>
      (
        await fetch(`http://127.0.0.1:${subgraph.port}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...internalCredentialHeaders(internalSecret) },
          body: JSON.stringify({ query }),
        })
      ).headers.get('cache-control');
    expect(await cacheControl('{ plans { key name product monthlyPriceIqd } }')).toBe('max-age=60, public');
    expect(await cacheControl('{ plans(product: CV) { key } }')).toBe('max-age=60, public');
    // Object fields are uncacheable unless they say otherwise, and a plan's limits do not.
    expect(await cacheControl('{ plans { key cv { cvLimit } } }')).toBe('no-store');
    expect(await cacheControl('{ plan(key: "pro") { key } }')).toBe('no-store');
    expect(
      await cacheControl(
        '{ _entities(representations: [{ __typename: "Plan", key: "pro" }]) { ... on Plan { key } } }',
      ),
    ).toBe('no-store');
  });

  it('resolves a Plan that another subgraph refers to by key', async () => {
    const body = await graphql(
      `
        query ($representations: [_Any!]!) {
          _entities(representations: $representations) {
            ... on Plan {
              key
              name
              cv {
                watermark
              }
            }
          }
        }
      `,
      {
        representations: [
          { __typename: 'Plan', key: 'pro' },
          { __typename: 'Plan', key: 'gold' },
        ],
      },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({ _entities: [{ key: 'pro', name: 'Pro', cv: { watermark: false } }, null] });
  });

  it('answers one plan by key, and null for an unknown key', async () => {
    const body = await graphql(
      '{ growth: plan(key: "growth") { product tickets { apiAccess } } gold: plan(key: "gold") { key } }',
    );
    expect(body.data).toEqual({ growth: { product: 'TICKETS', tickets: { apiAccess: true } }, gold: null });
  });

  it('refuses a product outside the enum as the caller’s mistake', async () => {
    const body = await graphql('query ($p: Product) { plans(product: $p) { key } }', { p: 'CARS' });
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('publishes its SDL to the gateway through _service', async () => {
    const body = await graphql('{ _service { sdl } }');
    expect((body.data?._service as { sdl: string }).sdl).toContain('type Plan');
  });
});
