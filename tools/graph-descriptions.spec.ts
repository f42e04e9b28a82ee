import { readFile } from 'node:fs/promises';
import { Supergraph } from '@apollo/federation-internals';
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLSchema,
} from 'graphql';
import { SUPERGRAPH_FILE } from '../common/paths';

/** Every type, field, argument, input field and enum value of the graph clients see. */
function undescribed(schema: GraphQLSchema): string[] {
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((root) =>
      root === null || root === undefined ? [] : [root.name],
    ),
  );
  const missing: string[] = [];
  const check = (description: string | null | undefined, coordinate: string) => {
    if (description === null || description === undefined || description.trim() === '') {
      missing.push(coordinate);
    }
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || isSpecifiedScalarType(type)) continue;
    if (!roots.has(type.name)) check(type.description, type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(field.description, `${type.name}.${field.name}`);
        for (const arg of field.args) {
          check(arg.description, `${type.name}.${field.name}(${arg.name}:)`);
        }
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(field.description, `${type.name}.${field.name}`);
      }
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) check(value.description, `${type.name}.${value.name}`);
    }
  }
  return missing.sort();
}

describe('the public graph', () => {
  it('describes every type, field, argument, input field and enum value', async () => {
    const sdl = await readFile(SUPERGRAPH_FILE(), 'utf8');
    const api = Supergraph.build(sdl).apiSchema().toGraphQLJSSchema();
    // Names what lacks a description, one coordinate a line, when this fails.
    expect(undescribed(api).join('\n')).toBe('');
  });
});
