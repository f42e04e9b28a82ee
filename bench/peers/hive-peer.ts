import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { normalizeNodeRequest, type FetchAPI } from '@whatwg-node/server';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { loadConfig, type Config } from '../../common/config';
import { INTERNAL_CREDENTIAL_HEADER } from '../../common/internal-credential';
import { projectRoot, SUPERGRAPH_FILE } from '../../common/paths';
import { REQUEST_ID_HEADER } from '../../common/request-context';
import { FORWARDED_HEADERS, SessionResolver } from '../../gateway/context';
import { peerPort, SUBGRAPH_NAMES, type PeerHeaders } from './peer-headers';

/**
 * Hive Gateway's runtime (`createGatewayRuntime`, what its CLI serves) on node:http, default
 * configuration but for `propagateHeaders` and one plugin that resolves a `Bearer ses_…` session
 * as the platform's gateway does: the second peer the gateway is measured against. The runtime is
 * served here rather than by the CLI so the session plugin is this compiled module calling the
 * platform's SessionResolver, not a config file the CLI loads; graphql-ws is wired as the CLI's
 * server wires it, and the gateway is one process, as the CLI's default of one worker is.
 *
 *   node dist/bench/peers/hive-peer.js <port>   (prints the port once it listens)
 */

interface SessionContext {
  sessionHeaders?: PeerHeaders;
}

/**
 * The part of `@graphql-hive/gateway-runtime` used here. Its declarations are not imported: they
 * bring graphql-yoga's global widening of GraphQLErrorExtensions (`http.headers` as a plain record)
 * into the whole program, where the gateway types that field as Apollo's HeaderMap.
 */
interface HiveRuntime {
  createGatewayRuntime(
    this: void,
    config: {
      supergraph: string;
      logging: string;
      plugins: () => unknown[];
      propagateHeaders: {
        fromClientToSubgraphs(payload: { request: Request; context: SessionContext }): PeerHeaders;
      };
    },
  ): RequestListener & { dispose(): unknown; graphqlEndpoint: string; fetchAPI: FetchAPI };
  getGraphQLWSOptions(
    this: void,
    runtime: unknown,
    onContext: (ctx: { extra: { request: IncomingMessage; socket: WebSocket } }) => Record<string, unknown>,
  ): Parameters<typeof useServer>[0];
}

/** An envelop plugin's context hook, as much of it as the session plugin uses. */
interface ContextBuilding {
  context: { request: Request };
  extendContext(this: void, extension: SessionContext): void;
}

/** The committed supergraph, its subgraph URLs pointed at this stack's (they are fixed ports in the file). */
function supergraphFor(config: Config): string {
  let sdl = readFileSync(SUPERGRAPH_FILE(), 'utf8');
  for (const name of SUBGRAPH_NAMES) {
    sdl = sdl.replace(
      new RegExp(`(@join__graph\\(name: "${name}", url: ")[^"]*(")`),
      `$1${config.subgraphUrls[name]}$2`,
    );
  }
  return sdl;
}

/** Resolves the session once per request, before any subgraph is asked. */
function sessionPlugin(sessions: SessionResolver) {
  return {
    async onContextBuilding({ context, extendContext }: ContextBuilding): Promise<void> {
      const headers = context.request.headers;
      const sessionHeaders = await sessions.headersFor(
        headers.get('authorization') ?? undefined,
        headers.get(REQUEST_ID_HEADER) ?? undefined,
      );
      extendContext({ sessionHeaders });
    },
  };
}

function main(): void {
  const config = loadConfig();
  const sessions = new SessionResolver(config);
  const level = config.logLevel === 'warn' || config.logLevel === 'error' ? config.logLevel : 'info';
  // Installed under bench/peers by bench/peers/install.sh, apart from the platform's packages.
  const { createGatewayRuntime, getGraphQLWSOptions } = createRequire(
    join(projectRoot(), 'bench/peers/package.json'),
  )('@graphql-hive/gateway-runtime') as HiveRuntime;
  const gateway = createGatewayRuntime({
    supergraph: supergraphFor(config),
    logging: level,
    plugins: () => [sessionPlugin(sessions)],
    propagateHeaders: {
      fromClientToSubgraphs({ request, context }) {
        const headers: PeerHeaders = { [INTERNAL_CREDENTIAL_HEADER]: config.internalSecret };
        for (const name of FORWARDED_HEADERS) {
          const value = request.headers.get(name);
          if (value !== null) headers[name] = value;
        }
        return { ...headers, ...context.sessionHeaders };
      },
    },
  });
  const server = createServer(gateway);
  // graphql-ws on the GraphQL path, wired as the CLI wires it (its startNodeHttpServer).
  const sockets = new WebSocketServer({ path: gateway.graphqlEndpoint, server });
  const ws = useServer(
    getGraphQLWSOptions(gateway, (ctx) => ({
      req: ctx.extra.request,
      socket: ctx.extra.socket,
      request: normalizeNodeRequest(ctx.extra.request, gateway.fetchAPI),
    })),
    sockets,
  );
  server.listen(peerPort(), '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  });
  const stop = () => {
    server.close();
    void Promise.resolve(ws.dispose())
      .then(() => gateway.dispose())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main();
