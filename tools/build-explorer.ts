import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { projectRoot } from '../common/paths';
import { describeFailure } from '../common/process';
import {
  EXPLORER_BUILD_DIR,
  EXPLORER_MANIFEST,
  type ExplorerManifest,
} from '../gateway/explorer/explorer-bundle';

const ENTRY = () => join(projectRoot(), 'gateway', 'explorer', 'explorer-app.js');

/**
 * `npm run build` bundles the gateway's development explorer: GraphiQL, React and graphql-ws in
 * one script, GraphiQL's stylesheet (fonts and icons already inlined as data: URLs) in one style,
 * under content-hashed names with gzipped twins, and a manifest naming them. Built here rather
 * than at the gateway's start so a gateway needs no bundler, and devDependencies stay out of
 * production images.
 */
async function buildExplorer(outDir: string): Promise<ExplorerManifest> {
  // A previous build's hashed files would otherwise pile up beside the new ones.
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const result = await build({
    absWorkingDir: projectRoot(),
    entryPoints: [ENTRY()],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    outdir: outDir,
    entryNames: 'explorer-[hash]',
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    logLevel: 'warning',
  });
  const entry = relative(projectRoot(), ENTRY());
  const [script, output] =
    Object.entries(result.metafile.outputs).find(([, out]) => out.entryPoint === entry) ?? [];
  if (script === undefined || output?.cssBundle === undefined) {
    throw new Error(`esbuild wrote no script and style for ${entry}`);
  }
  const manifest: ExplorerManifest = { script: basename(script), style: basename(output.cssBundle) };
  for (const name of [manifest.script, manifest.style]) {
    const body = await readFile(join(outDir, name));
    await writeFile(join(outDir, `${name}.gz`), gzipSync(body, { level: 9 }));
  }
  await writeFile(join(outDir, EXPLORER_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Names what it wrote and how big it is, since every kilobyte here is sent to each browser. */
async function main(): Promise<void> {
  const outDir = EXPLORER_BUILD_DIR();
  const manifest = await buildExplorer(outDir);
  const sizes = await Promise.all(
    [manifest.script, manifest.style].map(async (name) => {
      const [raw, gzipped] = await Promise.all([
        readFile(join(outDir, name)),
        readFile(join(outDir, `${name}.gz`)),
      ]);
      return `${name} ${kilobytes(raw.length)} (${kilobytes(gzipped.length)} gzipped)`;
    }),
  );
  process.stdout.write(`explorer: ${relative(projectRoot(), outDir)}/ ${sizes.join(', ')}\n`);
}

function kilobytes(bytes: number): string {
  return `${Math.round(bytes / 1024)} KiB`;
}

main().catch((error: unknown) => {
  process.stderr.write(`build-explorer: ${describeFailure(error)}\n`);
  process.exit(1);
});
