import { layeredFolders, moduleMap } from '../tools/module-map';

/**
 * Every area of eslint.boundaries.cjs's LAYERED_FOLDERS, as tools/module-map.ts draws it: lint
 * holds the imports it can see; this holds what it cannot, the arrows through type-only imports
 * (import-x/no-cycle skips them).
 */
describe.each(Object.keys(layeredFolders()))('the folders of %s', (area) => {
  const map = moduleMap(area);

  it('have no arrow up their order, type-only imports counting', () => {
    expect(map.arrowsUp).toEqual([]);
  });

  it('have no cycle between files, type-only imports counting', () => {
    expect(map.cycles).toEqual([]);
  });
});
