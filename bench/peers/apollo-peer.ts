import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import {
  ApolloGateway,
  RemoteGraphQLDataSource,
  type GraphQLDataSourceProcessOptions,
} from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { loadConfig, type SubgraphName } from '../../common/config';
import { INTERNAL_CREDENTIAL_HEADER } from '../../common/internal-credential';
import { SUPERGRAPH_FILE } from '../../common/paths';
import { FORWARDED_HEADERS, SessionResolver } from '../../gateway/context';
import { peerPort, SUBGRAPH_NAMES, type PeerHeaders } from './peer-headers';

/**
 * A stock `@apollo/gateway` on `@apollo/server`'s standalone server, no plugins, over the same
 * supergraph and subgraphs as the platform's gateway: the peer the gateway is measured against.
 * It is given only what a subgraph needs to answer it: the client's forwarded headers, a session's
 * user resolved as the platform's gateway resolves it, and the internal credential.
 *
 *   node dist/bench/peers/apollo-peer.js <port>   (prints the port once it listens)
 */

interface PeerContext {
  headers: PeerHeaders;
}

class ForwardingDataSource extends RemoteGraphQLDataSource<PeerContext> {
  constructor(
    url: string,
    private readonly internalSecret: string,
  ) {
    super({ url });
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<PeerContext>): void {
    if (request.http === undefined) return;
    request.http.headers.set(INTERNAL_CREDENTIAL_HEADER, this.internalSecret);
    // Fetches made while planning have no request context.
    if (!('headers' in context)) return;
    for (const [name, value] of Object.entries((context as PeerContext).headers)) {
      request.http.headers.set(name, value);
    }
  }
}

function headersOf(req: IncomingMessage): PeerHeaders {
  const headers: PeerHeaders = {};
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) headers[name] = first;
  }
  return headers;
}

async function main(): Promise<void> {
  // Apollo's own default would otherwise report usage to Apollo's servers from a benchmark.
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
  const config = loadConfig();
  const sessions = new SessionResolver(config);
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(SUPERGRAPH_FILE(), 'utf8'),
    buildService: ({ name, url }) =>
      new ForwardingDataSource(
        SUBGRAPH_NAMES.includes(name as SubgraphName) ? config.subgraphUrls[name as SubgraphName] : url!,
        config.internalSecret,
      ),
  });
  const server = new ApolloServer<PeerContext>({ gateway });
  const { url } = await startStandaloneServer(server, {
    listen: { port: peerPort(), host: '127.0.0.1' },
    context: async ({ req }) => {
      const headers = headersOf(req);
      Object.assign(headers, await sessions.headersFor(headers.authorization, headers['x-request-id']));
      return { headers };
    },
  });
  process.stdout.write(`${new URL(url).port}\n`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`apollo peer: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
