/** What a subgraph's answer tells the client operation's cache policy. */
export interface SubgraphCacheHint {
  maxAge: number;
  scope?: 'PUBLIC' | 'PRIVATE';
}

/**
 * A subgraph's `Cache-Control` as the hint it gives the client operation's cache policy, read as
 * `RemoteGraphQLDataSource` reads it (honorSubgraphCacheControlHeader, on by default).
 */
export function cacheHintOf(header: string | null): SubgraphCacheHint {
  const parsed: Record<string, string | true> = {};
  if (header) {
    for (const part of header.trim().split(/\s*,\s*/)) {
      const [name, value] = part.split(/\s*=\s*/, 2) as [string, string | undefined];
      parsed[name] = value === undefined ? true : value.replace(/^"|"$/g, '');
    }
  }
  const hint: SubgraphCacheHint = { maxAge: 0 };
  const maxAge = parsed['max-age'];
  if (typeof maxAge === 'string' && /^[0-9]+$/.test(maxAge)) hint.maxAge = Number(maxAge);
  if (parsed['private'] === true) hint.scope = 'PRIVATE';
  if (parsed['public'] === true) hint.scope = 'PUBLIC';
  return hint;
}
