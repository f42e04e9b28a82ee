import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  TypeInfo,
  typeFromAST,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';

/**
 * A real value for a place a variable fills, named by its schema coordinate: an argument
 * (`Query.venue.id`) or an input field (`CreateBranchInput.venueId`). Undefined: nothing known.
 */
export type KnownValue = (coordinate: string) => unknown;

/** Values of custom scalars that their parsers accept. */
const SCALAR_SAMPLES: Record<string, unknown> = {
  Int: 10,
  Float: 1.5,
  Boolean: false,
  String: 'sample',
  ID: '1',
  DateTimeISO: '2026-01-01T00:00:00.000Z',
  JSONObject: {},
};

/** A value of the type: the known one, else a sample with every required input field filled. */
function sampleOf(type: GraphQLInputType, coordinate: string, known: KnownValue): unknown {
  const found = known(coordinate);
  if (found !== undefined) return found;
  if (isNonNullType(type)) return sampleOf(type.ofType, coordinate, known);
  if (isListType(type)) return [sampleOf(type.ofType, coordinate, known)];
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0]?.value;
  if (isInputObjectType(named)) {
    return Object.fromEntries(
      Object.values(named.getFields())
        .filter((field) => isNonNullType(field.type) && field.defaultValue === undefined)
        .map((field) => [field.name, sampleOf(field.type, `${named.name}.${field.name}`, known)]),
    );
  }
  return SCALAR_SAMPLES[named.name] ?? 'sample';
}

/**
 * Variables for an operation: those given, else generated from where each variable is used, so
 * an id is a real object's (through `known`) and a page size the argument's own default.
 */
export function variablesFor(
  schema: GraphQLSchema,
  document: DocumentNode,
  known: KnownValue,
  given: Record<string, unknown> = {},
): Record<string, unknown> {
  const places = new Map<string, { coordinate: string; defaultValue: unknown }>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Variable(node, _key, parent) {
        const name = node.name.value;
        if (places.has(name) || (parent as { kind?: string } | undefined)?.kind === Kind.VARIABLE_DEFINITION)
          return;
        const argument = typeInfo.getArgument();
        const field = typeInfo.getFieldDef();
        const parentType = typeInfo.getParentType();
        const inputType = typeInfo.getParentInputType();
        if ((parent as { kind?: string } | undefined)?.kind === Kind.OBJECT_FIELD && inputType) {
          const fieldName = (parent as { name: { value: string } }).name.value;
          places.set(name, {
            coordinate: `${getNamedType(inputType).name}.${fieldName}`,
            defaultValue: undefined,
          });
        } else if (argument && field && parentType) {
          places.set(name, {
            coordinate: `${parentType.name}.${field.name}.${argument.name}`,
            defaultValue: argument.defaultValue,
          });
        }
      },
    }),
  );
  const variables: Record<string, unknown> = {};
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      const name = variable.variable.name.value;
      if (name in given) {
        variables[name] = given[name];
        continue;
      }
      const type = typeFromAST(schema, variable.type) as GraphQLInputType | undefined;
      if (type === undefined) continue;
      const place = places.get(name);
      const value = place === undefined ? undefined : known(place.coordinate);
      variables[name] = value ?? place?.defaultValue ?? sampleOf(type, place?.coordinate ?? name, known);
    }
  }
  return variables;
}
