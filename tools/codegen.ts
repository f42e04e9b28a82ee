import type { CodegenConfig } from '@graphql-codegen/cli';
import { apiSchemaSdl } from './api-schema';

/**
 * GraphQL Codegen's client preset over the panel's screens (test/fixtures/panel, which
 * test/e2e/documented-operations sends to the gateway): a typed document (`TypedDocumentNode`) and
 * result type for each. `npm run -s codegen` reads the graph from schema/supergraph.graphql as the
 * gateway serves it (tools/api-schema.ts), or, with GRAPHQL_SCHEMA_URL=http://127.0.0.1:4000/graphql,
 * from the running development gateway by introspection; it writes under test-artifacts/codegen/
 * (ignored by git), or under CODEGEN_OUTPUT.
 */
const config: CodegenConfig = {
  schema: process.env.GRAPHQL_SCHEMA_URL ?? apiSchemaSdl(),
  documents: 'test/fixtures/panel/*.graphql',
  generates: {
    [process.env.CODEGEN_OUTPUT ?? 'test-artifacts/codegen/']: {
      preset: 'client',
      // Scalars as JSON carries them; without this the preset types both as `any`.
      config: { scalars: { DateTimeISO: 'string', JSONObject: 'Record<string, unknown>' } },
    },
  },
};

// eslint-disable-next-line no-restricted-syntax -- GraphQL Codegen loads its configuration through a default export
export default config;
