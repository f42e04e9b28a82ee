import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kind, parse, type FragmentDefinitionNode } from 'graphql';
import { projectRoot } from '../../common/paths';
import { operationsOf, rootFieldsOf } from './documented-operations';

/** The panel's screens, one operation a file, with the fragments they share in their own files. */
export const PANEL_FIXTURES_DIR = join(projectRoot(), 'test', 'fixtures', 'panel');

export interface PanelFixture {
  file: string;
  name: string;
  rootFields: string[];
  /** The operation with the fragments it spreads, as a client's build sends it. */
  text: string;
}

/** Every panel fixture, each made sendable on its own as GraphQL Codegen's documents are. */
export function panelFixtures(dir = PANEL_FIXTURES_DIR): PanelFixture[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((file) => ({ file, source: readFileSync(join(dir, file), 'utf8') }));
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const { source } of files) {
    for (const definition of parse(source).definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
  }
  return files.flatMap(({ file, source }) => {
    const operations = operationsOf(source, fragments);
    if (operations.length > 1) throw new Error(`${file} holds ${operations.length} operations; one a screen`);
    return operations.map(({ definition, text }) => {
      if (definition.name === undefined) throw new Error(`${file}: Codegen needs the operation named`);
      return { file, name: definition.name.value, rootFields: rootFieldsOf(definition), text };
    });
  });
}
