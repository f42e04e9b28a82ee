import { readFile } from 'node:fs/promises';
import { ApolloGateway } from '@apollo/gateway';
import { printSchema } from 'graphql';
import { SUPERGRAPH_FILE } from '../common/paths';
import { apiSchema, apiSchemaSdl } from './api-schema';

describe('the API schema read from schema/supergraph.graphql', () => {
  it('is exactly the schema the gateway serves', async () => {
    process.env.APOLLO_TELEMETRY_DISABLED = 'true';
    const gateway = new ApolloGateway({ supergraphSdl: await readFile(SUPERGRAPH_FILE(), 'utf8') });
    try {
      expect(apiSchemaSdl()).toBe(printSchema((await gateway.load()).schema));
    } finally {
      await gateway.stop();
    }
  });

  it('holds none of federation’s machinery nor the fields hidden from clients', () => {
    const schema = apiSchema();
    const names = Object.keys(schema.getTypeMap());
    expect(names.filter((name) => /^(join|link)__/.test(name))).toEqual([]);
    expect(schema.getDirectives().map((d) => d.name)).not.toContain('join__field');
    // recordPlanChange is composed into the supergraph but @inaccessible (docs/API-DECISIONS.md).
    expect(Object.keys(schema.getMutationType()!.getFields())).not.toContain('recordPlanChange');
  });
});
