import 'reflect-metadata';
import type { Config } from '../../common/config';
import { startSubgraph, type RunningSubgraph } from '../../common/subgraph';
import { startGateway, type RunningGateway } from '../../gateway/gateway';
import { billingSubgraph } from '../../subgraphs/billing/billing.subgraph';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/database';
import { freePorts } from '../support/processes';
import { startRestAdapter, type RunningRestAdapter } from '../../rest-adapter/rest-adapter';

describe('the REST adapter in front of the real gateway and billing subgraph', () => {
  let database: TestDatabase;
  let config: Config;
  let billing: RunningSubgraph | undefined;
  let gateway: RunningGateway;
  let adapter: RunningRestAdapter;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const [billingPort, gatewayPort] = (await freePorts(2)) as [number, number];
    config = testConfig(database, {
      BILLING_PORT: String(billingPort),
      BILLING_SUBGRAPH_URL: `http://127.0.0.1:${billingPort}/graphql`,
      GATEWAY_URL: `http://127.0.0.1:${gatewayPort}/graphql`,
      GATEWAY_PORT: String(gatewayPort),
    });
    billing = await startSubgraph(billingSubgraph, config);
    gateway = await startGateway(config);
    adapter = await startRestAdapter(config);
    base = `http://127.0.0.1:${adapter.port}/api/v1`;
  });

  afterAll(async () => {
    await adapter?.stop();
    await gateway?.stop();
    await billing?.stop();
    await database.drop();
  });

  it('serves the plan catalogue', async () => {
    const response = await fetch(`${base}/plans`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { key: string }[] };
    expect(body.data.map((p) => p.key)).toEqual(['free', 'pro', 'business']);
  });

  it('answers 503 with Retry-After, and no internals, when the subgraph an operation needs is down', async () => {
    await billing?.stop();
    billing = undefined;
    const response = await fetch(`${base}/plans`, { headers: { 'x-request-id': 'down-1' } });
    expect(response.status).toBe(503);
    expect(response.headers.get('x-request-id')).toBe('down-1');
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({
      message: 'The service is temporarily unavailable; retry shortly.',
      errors: {},
    });
  });

  it('answers 503 with Retry-After when the gateway itself is gone', async () => {
    await gateway.stop();
    const response = await fetch(`${base}/plans`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toMatchObject({ message: 'Service temporarily unavailable' });
  });
});
