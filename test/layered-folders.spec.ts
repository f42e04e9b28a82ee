import { layeredFolders, moduleMap } from '../tools/module-map';

/**
 * Cycles known today, by area, each a group of files that import one another (type-only imports
 * counting). Lint cannot see them: import-x/no-cycle skips type-only imports. An area not named
 * here has none, and a new one fails the spec; so does a listed one that is gone (take it out).
 *
 * subgraphs/tickets: access-cache.ts takes the type VenueEntitlements from venue-plan.client.ts,
 * which imports announceAccessChange from access-cache.ts. Left for the tickets subgraph's own
 * change (the type can move to a file of its own); every other tickets file is held at none.
 */
const KNOWN_CYCLES: Record<string, string[][]> = {
  'subgraphs/tickets': [['access/access-cache.ts', 'access/venue-plan.client.ts']],
};

/**
 * Every area of eslint.boundaries.cjs's LAYERED_FOLDERS, as tools/module-map.ts draws it: lint
 * holds the imports it can see; this holds what it cannot, the arrows through type-only imports.
 */
describe.each(Object.keys(layeredFolders()))('the folders of %s', (area) => {
  const map = moduleMap(area);

  it('have no arrow up their order, type-only imports counting', () => {
    expect(map.arrowsUp).toEqual([]);
  });

  it('have no cycle between files, type-only imports counting', () => {
    expect(map.cycles).toEqual(KNOWN_CYCLES[area] ?? []);
  });
});
