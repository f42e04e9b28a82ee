import type { SubgraphName } from '../../common/config';

/** Header name to value, as a peer passes them to a subgraph. */
export type PeerHeaders = Record<string, string>;

export const SUBGRAPH_NAMES: readonly SubgraphName[] = ['tickets', 'cv', 'billing', 'identity'];

/** The port a peer is told on its command line; 0 takes a free one. */
export function peerPort(): number {
  const port = Number(process.argv[2] ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`not a port: ${process.argv[2]}`);
  return port;
}
