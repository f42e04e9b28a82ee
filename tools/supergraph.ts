import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';
import { SCHEMA_DIR, SUPERGRAPH_FILE } from '../common/paths';
import { printSubgraphSdl, type SubgraphDefinition } from '../common/subgraph';
import { SUBGRAPHS } from '../subgraphs';

/** Ports a subgraph listens on by default; the gateway overrides these URLs from its config. */
const DEFAULT_PORTS: Record<string, number> = { tickets: 4001, cv: 4002, billing: 4003, identity: 4005 };

export interface SchemaFile {
  path: string;
  content: string;
}

export class CompositionError extends Error {
  constructor(messages: string[]) {
    super(`Supergraph composition failed:\n${messages.map((m) => `  - ${m}`).join('\n')}`);
    this.name = 'CompositionError';
  }
}

/** Prints every subgraph's SDL and composes them; the result is what `schema/` must hold. */
export async function generateSchemaFiles(
  subgraphs: readonly SubgraphDefinition[] = SUBGRAPHS,
): Promise<SchemaFile[]> {
  const printed = await Promise.all(
    subgraphs.map(async (definition) => ({ definition, sdl: await printSubgraphSdl(definition) })),
  );
  const result = composeServices(
    printed.map(({ definition, sdl }) => ({
      name: definition.name,
      url: `http://127.0.0.1:${DEFAULT_PORTS[definition.name] ?? 0}/graphql`,
      typeDefs: parse(sdl),
    })),
  );
  if (result.errors !== undefined) throw new CompositionError(result.errors.map((e) => e.message));
  return [
    ...printed.map(({ definition, sdl }) => ({
      path: join(SCHEMA_DIR(), `${definition.name}.graphql`),
      content: `${sdl.trimEnd()}\n`,
    })),
    { path: SUPERGRAPH_FILE(), content: `${result.supergraphSdl.trimEnd()}\n` },
  ];
}

/** Files under `schema/` whose committed content differs from what the code produces. */
export async function staleSchemaFiles(files: SchemaFile[]): Promise<string[]> {
  const stale: string[] = [];
  for (const file of files) {
    const committed = await readFile(file.path, 'utf8').catch(() => undefined);
    if (committed !== file.content) stale.push(file.path);
  }
  return stale;
}

export async function writeSchemaFiles(files: SchemaFile[]): Promise<void> {
  await Promise.all(files.map((file) => writeFile(file.path, file.content)));
}
