import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { ObjectType, Field, Query, Resolver, Directive } from 'type-graphql';
import { SUPERGRAPH_FILE } from '../common/paths';
import type { SubgraphDefinition } from '../common/subgraph';
import { CompositionError, generateSchemaFiles, staleSchemaFiles } from './supergraph';

describe('the supergraph', () => {
  it('composes from the subgraphs, and schema/ holds exactly what the code produces', async () => {
    const files = await generateSchemaFiles();
    expect(files.map((f) => f.path.split('/').pop())).toEqual([
      'tickets.graphql',
      'cv.graphql',
      'billing.graphql',
      'identity.graphql',
      'supergraph.graphql',
    ]);
    // `npm run compose` rewrites schema/ after a schema change; commit what it writes.
    expect(await staleSchemaFiles(files)).toEqual([]);
  });

  it('serves the billing catalogue through Query.plans', async () => {
    const supergraph = await readFile(SUPERGRAPH_FILE(), 'utf8');
    expect(supergraph).toContain('plans(');
    expect(supergraph).toMatch(/type Plan\s+@join__type\(graph: BILLING, key: "key"\)/);
  });

  it('fails with the composition errors when two subgraphs disagree', async () => {
    @Directive('@key(fields: "id")')
    @ObjectType('Clash')
    class ClashAsString {
      @Field(() => String) id!: string;
      @Field(() => String) value!: string;
    }
    @Resolver()
    class ClashResolver {
      @Query(() => ClashAsString) clash(): ClashAsString {
        return { id: '1', value: 'x' };
      }
    }
    const clashing: SubgraphDefinition = {
      name: 'tickets',
      schemaModule: { schema: 'tickets', entities: [], migrations: () => Promise.resolve([]) },
      resolvers: [ClashResolver],
      createResolvers: () => [new ClashResolver()],
    };
    // The same field on the same root type, from two subgraphs, without @shareable.
    await expect(generateSchemaFiles([clashing, { ...clashing, name: 'cv' }])).rejects.toThrow(
      CompositionError,
    );
  });
});
