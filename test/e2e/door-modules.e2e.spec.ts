import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths';

/** The modules a compiled door loads, by the packages and folders this test cares about. */
function loadedBy(entry: string): Record<string, number> {
  const script = `
    require('reflect-metadata');
    require(${JSON.stringify(join(projectRoot(), 'dist', entry))});
    const loaded = Object.keys(require.cache);
    const count = (part) => loaded.filter((path) => path.includes(part)).length;
    process.stdout.write(JSON.stringify({
      mikroOrm: count('/node_modules/@mikro-orm/'),
      sharp: count('/node_modules/sharp/'),
      puppeteer: count('/node_modules/puppeteer'),
      typeGraphql: count('/node_modules/type-graphql/'),
      subgraphs: count('/dist/subgraphs/'),
    }));`;
  return JSON.parse(
    execFileSync(process.execPath, ['-e', script], { cwd: projectRoot() }).toString(),
  ) as Record<string, number>;
}

describe('the doors load no domain code', () => {
  it.each(['rest-adapter/rest-adapter.js', 'gateway/gateway.js'])(
    '%s loads no ORM, no sharp, no Chromium driver and no subgraph',
    (entry) => {
      expect(loadedBy(entry)).toEqual({ mikroOrm: 0, sharp: 0, puppeteer: 0, typeGraphql: 0, subgraphs: 0 });
    },
  );
});
