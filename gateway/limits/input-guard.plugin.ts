import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import {
  GraphQLError,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  TypeInfo,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { resolvers as KNOWN_SCALARS } from 'graphql-scalars';
import { addFieldError, ValidationError, type FieldMessages } from '../../common/errors';
import { say, type MessageId } from '../../common/messages';
import {
  isStorableDate,
  nestingMessage,
  printablePath,
  textErrorsIn,
  textProblemMessage,
  textProblemOf,
} from '../../common/input.rules';

/**
 * The subgraphs take request bodies of 1 MB (the cv subgraph 8 MB, for photos), and one that
 * refuses a body answers the gateway with a bare 413 that reaches the client as a server error.
 * So an operation's arguments are bounded here, below that, with the field named.
 */
export const ARGUMENTS_MAX_KILOBYTES = 1000;

/** Arguments that carry a file and go to the cv subgraph, whose bodies may be 8 MB (PHOTO_BODY_LIMIT). */
const FILE_ARGUMENTS = new Set(['Mutation.setCvPhoto.photoBase64']);

/**
 * Custom scalars are opaque to the gateway's schema: it passes any value on, and the subgraph that
 * refuses it answers 400, which the gateway can only report as a server error. The subgraphs build
 * these scalars with graphql-scalars, so the same implementations judge them here.
 */
const SCALAR_MESSAGES: Record<string, MessageId> = {
  DateTimeISO: 'field.date',
  JSONObject: 'field.object',
};

function checkValue(
  value: unknown,
  type: GraphQLInputType,
  path: (string | number)[],
  errors: FieldMessages,
  isArgument: boolean,
): void {
  if (value === null || value === undefined) return;
  const nullable = isNonNullType(type) ? type.ofType : type;
  if (isListType(nullable)) {
    // A single value where a list is declared is coerced to a list of one, as GraphQL does.
    if (Array.isArray(value))
      value.forEach((item, index) => checkValue(item, nullable.ofType, [...path, index], errors, false));
    else checkValue(value, nullable.ofType, path, errors, false);
    return;
  }
  if (isInputObjectType(nullable)) {
    if (typeof value !== 'object' || Array.isArray(value)) return;
    for (const field of Object.values(nullable.getFields())) {
      checkValue(
        (value as Record<string, unknown>)[field.name],
        field.type,
        [...path, field.name],
        errors,
        false,
      );
    }
    return;
  }
  if (!isScalarType(nullable)) return;
  const key = printablePath(path);
  // A record's id is the subgraph's to parse (common/input.rules.ts#parseRecordId): one that cannot
  // be a record's is its NOT_FOUND, in the subgraph's words and the caller's language.
  if (nullable.name === 'ID' && isArgument) return;
  if (nullable.name === 'String' || nullable.name === 'ID') {
    const problem = typeof value === 'string' ? textProblemOf(value) : undefined;
    if (problem !== undefined) addFieldError(errors, key, textProblemMessage(key, problem));
    return;
  }
  const scalar = KNOWN_SCALARS[nullable.name];
  if (scalar !== undefined) {
    let parsed: unknown;
    try {
      parsed = scalar.parseValue(value);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed instanceof Date && !isStorableDate(parsed))) {
      addFieldError(errors, key, say(SCALAR_MESSAGES[nullable.name] ?? 'field.invalid', { field: key }));
      return;
    }
  }
  for (const [field, messages] of Object.entries(textErrorsIn(value, path, key))) {
    for (const message of messages) addFieldError(errors, field, message);
  }
}

/**
 * A value's size as JSON, or undefined when it nests too deeply to be written at all (fields an
 * input type does not declare are not read by the checks above, but would still be sent on).
 */
function byteSize(value: unknown): number | undefined {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return undefined;
  }
}

/** An argument of an operation, as its document places it: what varies per request is only its value. */
interface ArgumentSite {
  name: string;
  type: GraphQLInputType;
  value: ValueNode;
  /** A file's argument, bounded by the cv subgraph's larger body limit instead of the total below. */
  isFile: boolean;
}

/**
 * The arguments of each operation, found once per parsed document: Apollo keeps one parsed
 * document per query text, so the type-aware walk of the document is not repeated per request.
 */
const sitesOf = new WeakMap<GraphQLSchema, WeakMap<OperationDefinitionNode, ArgumentSite[]>>();

function argumentSites(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): ArgumentSite[] {
  let bySchema = sitesOf.get(schema);
  if (bySchema === undefined) sitesOf.set(schema, (bySchema = new WeakMap()));
  const known = bySchema.get(operation);
  if (known !== undefined) return known;
  const sites: ArgumentSite[] = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      // Only the operation that runs; fragments are visited where they are defined.
      OperationDefinition: (node) => (node === operation ? undefined : false),
      Argument: (node) => {
        const argument = typeInfo.getArgument();
        if (!argument) return;
        const owner = `${typeInfo.getParentType()?.name ?? ''}.${typeInfo.getFieldDef()?.name ?? ''}`;
        sites.push({
          name: node.name.value,
          type: argument.type,
          value: node.value,
          isFile: FILE_ARGUMENTS.has(`${owner}.${argument.name}`),
        });
      },
    }),
  );
  bySchema.set(operation, sites);
  return sites;
}

/**
 * The field errors of an operation's arguments (literals and variables alike), keyed by the
 * argument's path, e.g. `input.customerName` or `filter.from`.
 */
export function argumentErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): FieldMessages {
  const errors: FieldMessages = {};
  let bytes = 0;
  let largest: { key: string; bytes: number } | undefined;
  for (const site of argumentSites(schema, document, operation)) {
    const value =
      site.value.kind === Kind.VARIABLE
        ? variables[site.value.name.value]
        : valueFromASTUntyped(site.value, variables);
    checkValue(value, site.type, [site.name], errors, true);
    if (site.isFile) continue;
    const size = byteSize(value);
    if (size === undefined) {
      const named = Object.keys(errors).some((key) => key === site.name || key.startsWith(`${site.name}.`));
      if (!named) addFieldError(errors, site.name, nestingMessage(site.name));
      continue;
    }
    bytes += size;
    if (largest === undefined || size > largest.bytes) largest = { key: site.name, bytes: size };
  }
  if (largest !== undefined && bytes > ARGUMENTS_MAX_KILOBYTES * 1024) {
    addFieldError(
      errors,
      largest.key,
      say('field.arguments_too_large', { field: largest.key, max: ARGUMENTS_MAX_KILOBYTES }),
    );
  }
  return errors;
}

/**
 * Checks every argument of an operation before it is planned: text with a NUL or a lone surrogate,
 * a custom scalar its subgraph would refuse, and arguments too large for a subgraph are
 * BAD_USER_INPUT with `extensions.errors` keyed by the argument's path, the same rule the REST
 * adapter applies to its documents (rest-adapter/input-guard.ts).
 */
export function inputGuardPlugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation: ({ schema, document, operation, request }) => {
          if (operation === undefined) return Promise.resolve();
          const errors = argumentErrors(schema, document, operation, request.variables ?? {});
          if (Object.keys(errors).length === 0) return Promise.resolve();
          const refusal = new ValidationError(errors);
          // Apollo answers an error thrown here with 500 unless it says otherwise; a client's mistake is 400.
          return Promise.reject(
            new GraphQLError(refusal.message, {
              extensions: { ...refusal.extensions, http: { status: 400 } },
            }),
          );
        },
      }),
  };
}
