import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

let cached: string | undefined;

/** The repository root, found the same way from sources (tests) and from `dist/` (processes). */
export function projectRoot(): string {
  if (cached !== undefined) return cached;
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${__dirname}`);
    dir = parent;
  }
  cached = dir;
  return dir;
}

export const SCHEMA_DIR = () => join(projectRoot(), 'schema');
export const SUPERGRAPH_FILE = () => join(SCHEMA_DIR(), 'supergraph.graphql');
