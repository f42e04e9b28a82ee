import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { moduleMap, rankIn } from './module-map';

/** A small area on disk: two folders in order (low < high) and a root module. */
const AREA: Record<string, string> = {
  'low/index.ts': "export { type Low } from './low';\nexport type { Later } from './later';\n",
  // Type-only, both spellings: an arrow up, and one half of a cycle.
  'low/low.ts': "import type { High } from '../high';\nexport interface Low { high?: High }\n",
  'low/later.ts': "export type Later = import('../high/high').High;\n",
  'high/index.ts': "export { type High, make } from './high';\n",
  'high/high.ts':
    "import { type Low } from '../low';\nexport interface High { low: Low }\nexport const make = () => 1;\n",
  'root.ts': "import { make } from './high';\nexport const made = make();\n",
};

describe('the module map', () => {
  let area: string;

  beforeAll(async () => {
    area = await mkdtemp(join(tmpdir(), 'module-map-'));
    for (const [file, text] of Object.entries(AREA)) {
      await mkdir(dirname(join(area, file)), { recursive: true });
      await writeFile(join(area, file), text);
    }
  });

  afterAll(() => rm(area, { recursive: true, force: true }));

  it('draws an import of an index to the file that declares the name', () => {
    const map = moduleMap(area, rankIn({ folders: ['low', 'high'], roots: ['root.ts'] }));
    expect(map.files).toHaveLength(6);
    expect(map.fileArrows).toBe(4);
    expect(map.betweenFolders).toEqual(
      new Map([
        ['(root) → high', 1],
        ['high → low', 1],
        ['low → high', 2],
      ]),
    );
  });

  it('finds arrows up the order and cycles through type-only imports', () => {
    const map = moduleMap(area, rankIn({ folders: ['low', 'high'], roots: ['root.ts'] }));
    expect(map.arrowsUp).toEqual(['low/later.ts → high/high.ts', 'low/low.ts → high/high.ts']);
    expect(map.cycles).toEqual([['high/high.ts', 'low/low.ts']]);
  });

  it('judges no order for an area that has none', () => {
    expect(moduleMap(area).arrowsUp).toBeUndefined();
  });
});
