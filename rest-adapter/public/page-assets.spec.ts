import { boardWorker, PageAssetFiles } from './page-assets';

/** The board's service worker as a release writes it: what it keeps, and under which cache. */
function worker(assets: PageAssetFiles, paths: string[]): { release: string; precache: string[] } {
  const text = boardWorker(assets, paths).body.toString();
  const release = /var RELEASE = '([0-9a-f]{12})';/.exec(text)?.[1];
  const precache = /var PRECACHE = (\[.*\]);/.exec(text)?.[1];
  if (release === undefined || precache === undefined)
    throw new Error(`no release in:\n${text.slice(0, 200)}`);
  return { release, precache: JSON.parse(precache) as string[] };
}

describe('the staff board’s service worker', () => {
  it('keeps the page, its content-hashed files and the fonts its stylesheet names', () => {
    const assets = new PageAssetFiles('/b/assets');
    const style = assets.stylesheet('board.css', [400]);
    const script = assets.hashed('board.js');
    const { precache } = worker(assets, ['/board', style, script]);
    expect(precache.slice(0, 3)).toEqual(['/board', style, script]);
    expect(style).toMatch(/^\/b\/assets\/board\.[0-9a-f]{12}\.css$/);
    // Naskh's Arabic and Latin files at the one weight the board declares, as the sheet names them.
    expect(precache.slice(3).sort()).toEqual([
      '/b/assets/fonts/naskh-arabic-400.woff2',
      '/b/assets/fonts/naskh-latin-400.woff2',
    ]);
    for (const path of precache.slice(1))
      expect(assets.files.has(path.slice('/b/assets/'.length))).toBe(true);
  });

  it('names a new cache for a release whose files differ, and the same one for the same files', () => {
    const assets = new PageAssetFiles('/b/assets');
    const style = assets.stylesheet('board.css', [400]);
    const first = worker(assets, ['/board', style, assets.hashed('board.js')]);
    const again = worker(assets, ['/board', style, assets.hashed('board.js')]);
    const other = worker(assets, ['/board', style, assets.hashed('board-sync.js')]);
    expect(again.release).toBe(first.release);
    expect(other.release).not.toBe(first.release);
  });
});
