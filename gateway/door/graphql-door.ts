import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import { graphqlDoor as frontDoor, sendText } from '../../common/graphql-door';
import type { BodyLimit } from '../../common/graphql-server';
import type { HttpService } from '../../common/http-service';
import type { Logger } from '../../common/logger';
import type { GatewayContext } from '../context';
import type { PreparedOperations } from '../fetch';
import type { GatewayRateLimits } from '../limits';
import { FrontDoorCounts } from './arrival-count';

/**
 * The gateway's front door for `POST /graphql` (common/graphql-door.ts), with what the gateway adds
 * to it: each request's count starts as it arrives, as express's way starts it (arrival-count.ts),
 * and operations seen before run without Apollo's request pipeline (layer B,
 * gateway/fetch/prepared-operations.ts). Skipping express here was a tenth of the gateway's CPU per
 * request (docs/design/gateway-fast-path.md).
 */
export interface GraphqlDoorOptions {
  service: HttpService;
  apollo: ApolloServer<GatewayContext>;
  limits: GatewayRateLimits;
  logger: Logger;
  /** The headers of a request the subgraphs are given. */
  forwardedHeaders(req: IncomingMessage): GatewayContext['headers'];
  /** Apollo's context for a request, as express's way builds it. */
  context(
    headers: GatewayContext['headers'],
    address: string | undefined,
    client: GatewayContext['client'],
  ): Promise<GatewayContext>;
  bodyLimit: BodyLimit;
  /** Operations run again without Apollo's request pipeline; absent, Apollo takes every request. */
  prepared?: PreparedOperations;
}

/** Layer B's run of a matched request: true when it answered, false when Apollo is to. */
async function answerPrepared(
  prepared: PreparedOperations,
  matched: NonNullable<ReturnType<PreparedOperations['match']>>,
  context: GatewayContext,
  res: ServerResponse,
): Promise<boolean> {
  const outcome = await prepared.run(matched, context);
  if (outcome.kind !== 'answered') return false;
  for (const [name, value] of Object.entries(outcome.answer.headers)) res.setHeader(name, value);
  sendText(res, 200, outcome.answer.headers['content-type'], outcome.answer.body);
  return true;
}

export function graphqlDoor(
  options: GraphqlDoorOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { service, prepared } = options;
  const counts = new FrontDoorCounts(options.limits);
  return frontDoor<GatewayContext>({
    service,
    apollo: options.apollo,
    logger: options.logger,
    serving: 'the gateway',
    bodyLimit: options.bodyLimit,
    arriving(req) {
      const headers = options.forwardedHeaders(req);
      const address = service.clientAddress(req);
      const rawCredential = req.headers['x-internal-credential'];
      const client = counts.arriving(
        Array.isArray(rawCredential) ? rawCredential.join(', ') : rawCredential,
        headers,
        address,
      );
      // One context per request: a request layer B hands over keeps the one it was given (and any
      // result it holds).
      let context: Promise<GatewayContext> | undefined;
      const contextOf = (): Promise<GatewayContext> =>
        (context ??= options.context({ ...headers }, address, client));
      return {
        context: contextOf,
        answer: async (body, res) => {
          const matched = prepared?.match(body, req.headers);
          if (matched === undefined) return false;
          return answerPrepared(prepared!, matched, await contextOf(), res);
        },
      };
    },
  });
}
