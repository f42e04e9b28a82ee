import { readFileSync } from 'node:fs';

/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, as `bench:tickets -- --profile` writes them):
 * the functions with the most self time, the most inclusive time (a function counted once per
 * sample however often it recurs), and self time by package, each as a share of the busy samples
 * (all but `(idle)`).
 *
 *   node dist/bench/cpu-profile.js <file.cpuprofile> [--top 25]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a function lives: `express/lib/router/index.js:42`, a platform file, or node's own. */
function placeOf(url: string, line: number): string {
  if (url === '') return '';
  const modules = url.lastIndexOf('/node_modules/');
  const path =
    modules === -1 ? url.replace(/^file:\/\//, '').replace(/^.*\/dist\//, '') : url.slice(modules + 14);
  return `${path}:${line + 1}`;
}

/** The package a function belongs to: an npm package, `node:` internals, the platform, or V8's own. */
function packageOf(url: string, name: string): string {
  if (url === '') return `(${name.replace(/[()]/g, '') || 'native'})`;
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules === -1) return `platform: ${url.replace(/^.*\/dist\//, '').split('/')[0]}`;
  const rest = url.slice(modules + 14).split('/');
  return rest[0]?.startsWith('@') === true ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
}

function summarise(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = (node: ProfileNode) =>
    `${node.callFrame.functionName || '(anonymous)'} ${placeOf(node.callFrame.url, node.callFrame.lineNumber)}`;

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const node = byId.get(id);
    if (node === undefined) return;
    if (node.callFrame.functionName === '(idle)') {
      idle += delta;
      return;
    }
    busy += delta;
    self.set(keyOf(node), (self.get(keyOf(node)) ?? 0) + delta);
    const pkg = packageOf(node.callFrame.url, node.callFrame.functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + delta);
    const seen = new Set<string>();
    for (let at: ProfileNode | undefined = node; at !== undefined; at = byId.get(parent.get(at.id) ?? -1)) {
      const key = keyOf(at);
      if (key.startsWith('(root)') || seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + delta);
    }
  });

  const table = (title: string, values: Map<string, number>) =>
    [
      `## ${title}`,
      '| share of busy | ms | function |',
      '|---|---|---|',
      ...[...values.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([key, us]) => `| ${((us / busy) * 100).toFixed(1)}% | ${(us / 1000).toFixed(0)} | ${key} |`),
    ].join('\n');
  return [
    `busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s`,
    table('Self time', self),
    table('Inclusive time', inclusive),
    table('Self time by package', packages),
  ].join('\n\n');
}

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: node dist/bench/cpu-profile.js <file.cpuprofile> [--top 25]\n');
  process.exit(2);
}
const topIndex = process.argv.indexOf('--top');
const top = topIndex === -1 ? 25 : Number(process.argv[topIndex + 1]);
process.stdout.write(`${summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, top)}\n`);
