import { randomBytes } from 'node:crypto';
import type { ApolloServerPlugin, GraphQLRequestContextWillSendResponse } from '@apollo/server';
import { Kind, OperationTypeNode, parse, type OperationDefinitionNode } from 'graphql';
import { ProcessMetrics } from '../../common/metrics';
import type { RateDecision, RatePolicy } from '../../common/rate-budget';
import { GatewayMetrics, OPERATION_NAME_CAP, senderOf } from './gateway-metrics';
import type { GatewayContext } from '../context';

const decision = (name: RatePolicy['name']): RateDecision => ({
  policy: { name, quota: 60, windowSeconds: 60 },
  allowed: true,
  remaining: 59,
  resetSeconds: 60,
});

/** The operation names `nida_graphql_operations_total` has series for. */
async function labelledNames(metrics: ProcessMetrics): Promise<Set<string>> {
  const text = await metrics.registry.metrics();
  return new Set(
    [...text.matchAll(/^nida_graphql_operations_total\{[^}]*operation_name="([^"]*)"/gm)].map((m) => m[1]!),
  );
}

/** One operation through the metrics plugin, as Apollo hands it over once answered. */
async function send(
  plugin: ApolloServerPlugin<GatewayContext>,
  name: string,
  contextValue: GatewayContext,
): Promise<void> {
  const document = parse(`query ${name} { plans { key } }`);
  const listeners = await plugin.requestDidStart!({} as never);
  await listeners!.willSendResponse!({
    operation: document.definitions[0] as OperationDefinitionNode,
    operationName: name,
    request: { operationName: name },
    document,
    errors: undefined,
    contextValue,
  } as unknown as GraphQLRequestContextWillSendResponse<GatewayContext>);
}

const anonymous = (): GatewayContext => ({
  headers: {},
  client: { address: '203.0.113.9', counting: Promise.resolve([decision('public')]) },
});
const withKey = (): GatewayContext => ({
  headers: { authorization: 'Bearer tk_known' },
  client: { address: '203.0.113.10', counting: Promise.resolve([decision('tickets')]) },
});
const platform = (): GatewayContext => ({ headers: {}, platform: true });

describe('operation names as label values: a bounded set that callers without a credential cannot fill', () => {
  it('gives 200 invented names from anonymous callers `other`, so a credentialed client’s and the platform’s names still appear', async () => {
    const processMetrics = new ProcessMetrics('gateway');
    const plugin = new GatewayMetrics(processMetrics).plugin();
    for (let i = 0; i < 200; i += 1) await send(plugin, `Junk${randomBytes(6).toString('hex')}`, anonymous());
    await send(plugin, 'PosTicketsPoll', withKey());
    // The REST adapter's operation behind the ticket page.
    await send(plugin, 'TicketPageOpen', platform());
    expect(await labelledNames(processMetrics)).toEqual(
      new Set(['other', 'PosTicketsPoll', 'TicketPageOpen']),
    );
  });

  it('lets credentialed callers fill the cap, keeps the platform’s names beyond it, and answers anyone with a kept name', () => {
    const metrics = new GatewayMetrics(new ProcessMetrics('gateway'));
    for (let i = 0; i < OPERATION_NAME_CAP; i += 1) {
      expect(metrics.operationNameLabel(`Client${i}`, 'credentialed')).toBe(`Client${i}`);
    }
    expect(metrics.operationNameLabel('OneTooMany', 'credentialed')).toBe('other');
    expect(metrics.operationNameLabel('CvShow', 'platform')).toBe('CvShow');
    expect(metrics.operationNameLabel('Client7', 'anonymous')).toBe('Client7');
    expect(metrics.operationNameLabel('CvShow', 'anonymous')).toBe('CvShow');
    expect(metrics.operationNameLabel('Unknown', 'anonymous')).toBe('other');
    expect(metrics.operationNameLabel('', 'anonymous')).toBe('anonymous');
  });

  it('counts a request as credentialed only when its count fell on a credential’s budget', () => {
    expect(senderOf({ platform: true }, [])).toBe('platform');
    expect(senderOf({}, [decision('tickets')])).toBe('credentialed');
    expect(senderOf({}, [decision('public'), decision('people')])).toBe('credentialed');
    // An invented key is counted against its address, as are callers without one.
    expect(senderOf({}, [decision('public')])).toBe('anonymous');
    expect(senderOf({}, [decision('public'), decision('public-writes')])).toBe('anonymous');
    // Nothing counted (graphql-ws counts at admission, Redis away): nobody the gateway can name.
    expect(senderOf({}, [])).toBe('anonymous');
  });

  it('counts the prepared path’s answers by the same rule', () => {
    const processMetrics = new ProcessMetrics('gateway');
    const metrics = new GatewayMetrics(processMetrics);
    const operation: OperationDefinitionNode = {
      kind: Kind.OPERATION_DEFINITION,
      operation: OperationTypeNode.QUERY,
      selectionSet: { kind: Kind.SELECTION_SET, selections: [] },
    };
    metrics.answered(operation, 'Invented', 'success', 'anonymous');
    metrics.answered(operation, 'Catalogue', 'success', 'credentialed');
    return expect(labelledNames(processMetrics)).resolves.toEqual(new Set(['other', 'Catalogue']));
  });
});
