import { ApolloGateway } from '@apollo/gateway';
import type { Fetcher } from '@apollo/utils.fetcher';
import type { Config, SubgraphName } from '../../common/config';
import type { Logger } from '../../common/logger';
import type { SessionResolver } from '../context';
import { HeaderForwardingDataSource } from './header-forwarding.data-source';
import type { InflightFetches } from './inflight-fetches';

function isSubgraphName(name: string): name is SubgraphName {
  return name === 'tickets' || name === 'cv' || name === 'billing' || name === 'identity';
}

/** What the planner's data sources are built on. */
export interface SubgraphPlannerBacking {
  supergraphSdl: string;
  fetcher: Fetcher;
  /** Absent when identical fetches are not to be shared (GATEWAY_SHARE_FETCHES=false). */
  inflight: InflightFetches | undefined;
  /** Wraps a subgraph's fetcher in a timer (observe/gateway-metrics.ts). */
  metrics: { timedFetcher(subgraph: string, fetcher: Fetcher): Fetcher };
}

/** The query planner over the subgraphs, each fetched through the gateway's own data source. */
export function plannerOf(
  config: Config,
  logger: Logger,
  backing: SubgraphPlannerBacking,
  sessions: Pick<SessionResolver, 'forgetKept'>,
): ApolloGateway {
  const { supergraphSdl, fetcher, metrics, inflight } = backing;
  return new ApolloGateway({
    supergraphSdl,
    logger,
    buildService: ({ name, url }) =>
      new HeaderForwardingDataSource(
        {
          url: isSubgraphName(name) ? config.subgraphUrls[name] : url,
          // Inside the sharing: the histogram counts the fetches the subgraphs were sent.
          fetcher: metrics.timedFetcher(isSubgraphName(name) ? name : 'other', fetcher),
        },
        config.internalSecret,
        name,
        inflight,
        // A sign-out, a revoked session or a new password holds here from its answer on.
        name === 'identity' ? () => sessions.forgetKept() : undefined,
      ),
  });
}
