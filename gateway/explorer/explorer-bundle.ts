import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths';
import { IMMUTABLE, type Asset } from '../../common/static-asset';

/** Where `npm run build` (tools/build-explorer.ts) writes the explorer and the gateway reads it. */
export const EXPLORER_BUILD_DIR = () => join(projectRoot(), 'dist', 'explorer');

/** The file in EXPLORER_BUILD_DIR that names the bundle's content-hashed files. */
export const EXPLORER_MANIFEST = 'manifest.json';

/** The bundle's two files, by the names the build gave them (each has a `.gz` twin beside it). */
export interface ExplorerManifest {
  script: string;
  style: string;
}

/** The explorer's files as the gateway serves them. */
export interface ExplorerBundle {
  manifest: ExplorerManifest;
  files: ReadonlyMap<string, Asset>;
}

const TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

function typeOf(name: string): string {
  const extension = name.slice(name.lastIndexOf('.') + 1);
  if (extension !== 'js' && extension !== 'css') throw new Error(`the explorer has no ${name}`);
  return TYPES[extension];
}

/**
 * Reads the bundle once, at start: about 2 MB held for the gateway's life, which only development
 * gateways pay. Undefined when the bundle was never built (a source checkout run straight from
 * its tests), so the gateway can say how to build it instead of failing to start.
 */
export async function readExplorerBundle(dir = EXPLORER_BUILD_DIR()): Promise<ExplorerBundle | undefined> {
  let manifest: ExplorerManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, EXPLORER_MANIFEST), 'utf8')) as ExplorerManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const files = new Map<string, Asset>();
  for (const name of [manifest.script, manifest.style]) {
    const [body, gzipped] = await Promise.all([readFile(join(dir, name)), readFile(join(dir, `${name}.gz`))]);
    files.set(name, { body, gzipped, type: typeOf(name), cacheControl: IMMUTABLE });
  }
  return { manifest, files };
}
