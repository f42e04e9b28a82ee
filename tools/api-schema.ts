import { readFileSync } from 'node:fs';
import { Supergraph } from '@apollo/federation-internals';
import { printSchema, type GraphQLSchema } from 'graphql';
import { SUPERGRAPH_FILE } from '../common/paths';

/**
 * The graph as the gateway serves it to clients, read from the committed supergraph: without
 * federation's `join__`/`link__` machinery and without `@inaccessible` fields, which a client's
 * tools (GraphQL Codegen, an editor) should neither see nor generate types for.
 */
export function apiSchema(supergraphSdl: string = readFileSync(SUPERGRAPH_FILE(), 'utf8')): GraphQLSchema {
  return Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema();
}

/** apiSchema as SDL, which GraphQL Codegen takes as a schema source in place of a file or URL. */
export function apiSchemaSdl(supergraphSdl?: string): string {
  return printSchema(apiSchema(supergraphSdl));
}
