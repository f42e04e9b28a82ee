import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  getNamedType,
  GraphQLError,
  Kind,
  visit,
  parse,
  isListType,
  isObjectType,
  isNonNullType,
  type ArgumentNode,
  type DocumentNode,
  type GraphQLOutputType,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import type { Config } from '../common/config';
import type { GatewayContext } from './header-forwarding.data-source';

/** What one operation may ask of the gateway, from the configuration (GRAPHQL_MAX_*). */
export type QueryLimits = Config['graphqlLimits'];

/** Arguments by which a field says how many items it answers: its page size. */
const PAGE_SIZE_ARGUMENTS = ['perPage', 'first', 'last', 'limit'];

/**
 * Items assumed for a list without a page-size argument: the most the platform lets such a list
 * hold (a CV section's items, a catalogue), so a document cannot hide its weight inside one.
 */
export const UNPAGED_LIST_SIZE = 100;

function isList(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

/** Types that fields with a page-size argument answer (TicketPage): their lists are that page. */
const pageTypesOf = new WeakMap<GraphQLSchema, ReadonlySet<string>>();

function pageTypes(schema: GraphQLSchema): ReadonlySet<string> {
  let found = pageTypesOf.get(schema);
  if (found === undefined) {
    const names = new Set<string>();
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        if (field.args.some((a) => PAGE_SIZE_ARGUMENTS.includes(a.name)))
          names.add(getNamedType(field.type).name);
      }
    }
    pageTypesOf.set(schema, (found = names));
  }
  return found;
}

/**
 * Every field costs 1 plus what it selects; a field with a page-size argument multiplies what it
 * selects by that size (its default when not given), and a list without one by UNPAGED_LIST_SIZE,
 * except the list of a page, which the paged field has already multiplied.
 */
function pageSizeEstimator(schema: GraphQLSchema): ComplexityEstimator {
  const pages = pageTypes(schema);
  return ({ type, field, args, childComplexity }) => {
    // Introspection reads the schema, not data: the standard introspection query of every tool
    // weighs what it selects, once, rather than its lists multiplied out.
    if (field.name.startsWith('__') || type.name.startsWith('__')) return 1 + childComplexity;
    for (const name of PAGE_SIZE_ARGUMENTS) {
      const size = args[name] as unknown;
      if (field.args.some((a) => a.name === name) && typeof size === 'number' && size > 0) {
        return 1 + size * childComplexity;
      }
    }
    if (!isList(field.type) || pages.has(type.name)) return undefined;
    // A list of scalars costs its items; a list of objects, its items' selections each.
    return 1 + UNPAGED_LIST_SIZE * Math.max(1, childComplexity);
  };
}

/** The estimated cost of an operation with its variables (see pageSizeEstimator). */
export function costOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): number {
  return getComplexity({
    schema,
    query: document,
    variables: variables ?? {},
    operationName,
    estimators: [pageSizeEstimator(schema), simpleEstimator({ defaultComplexity: 1 })],
  });
}

/**
 * The variables an operation's cost can depend on: those given as a page size or as the condition
 * of `@include`/`@skip`. Every other variable (an id, an input) leaves the estimate as it is.
 */
function costVariablesOf(document: DocumentNode): string[] {
  const names = new Set<string>();
  const variableOf = (argument: ArgumentNode | undefined) => {
    if (argument?.value.kind === Kind.VARIABLE) names.add(argument.value.name.value);
  };
  visit(document, {
    Field(node) {
      for (const argument of node.arguments ?? []) {
        if (PAGE_SIZE_ARGUMENTS.includes(argument.name.value)) variableOf(argument);
      }
    },
    Directive(node) {
      if (node.name.value === 'include' || node.name.value === 'skip') {
        variableOf(node.arguments?.find((argument) => argument.name.value === 'if'));
      }
    },
  });
  return [...names].sort();
}

/** Estimates kept per document; a document's cost depends only on its cost variables. */
const estimates = new WeakMap<DocumentNode, { variables: string[]; costs: Map<string, number> }>();
const ESTIMATES_PER_DOCUMENT = 64;

/**
 * costOf, remembered per parsed document (Apollo hands the same DocumentNode to every request of
 * the same text) and the values of its cost variables: a busy operation is weighed once, not on
 * every request.
 */
export function cachedCostOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): number {
  let entry = estimates.get(document);
  if (entry === undefined)
    estimates.set(document, (entry = { variables: costVariablesOf(document), costs: new Map() }));
  const key = JSON.stringify([
    operationName ?? null,
    ...entry.variables.map((name) => variables?.[name] ?? null),
  ]);
  let cost = entry.costs.get(key);
  if (cost === undefined) {
    cost = costOf(schema, document, variables, operationName);
    if (entry.costs.size >= ESTIMATES_PER_DOCUMENT) entry.costs.clear();
    entry.costs.set(key, cost);
  }
  return cost;
}

/** The refusal of an operation over the cost limit: a 400, like the other limits, naming it. */
export function costError(cost: number, limits: QueryLimits): GraphQLError {
  return new GraphQLError(
    `Query cost limit of ${limits.maxCost} exceeded, found ${cost} (GRAPHQL_MAX_COST; each field costs 1, lists count their page size, ${UNPAGED_LIST_SIZE} items when unpaged).`,
    { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } },
  );
}

/** Variables the estimator could not coerce: the caller's mistake, named as graphql-js names it. */
function variablesError(error: unknown): GraphQLError {
  const message = error instanceof Error ? error.message : String(error);
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
}

/**
 * The gateway's bounds on every operation, before it is planned: tokens by graphql-js's own
 * parser (which stops reading at the limit), depth, aliases and directives through graphql-armor's
 * validation rules, the cost through graphql-query-complexity once the variables are known. Field
 * suggestions ("Did you mean …?") are masked in production, where introspection is off too.
 */
export function queryLimitOptions(
  limits: QueryLimits,
  production: boolean,
): {
  plugins: ApolloServerPlugin<GatewayContext>[];
  validationRules: ValidationRule[];
  parseOptions: { maxTokens: number };
} {
  const armor = new ApolloArmor({
    maxDepth: { n: limits.maxDepth },
    maxAliases: { n: limits.maxAliases },
    // Armor counts tokens in a second parse and fails as a 500; graphql-js's limit is a 400.
    maxTokens: { enabled: false },
    maxDirectives: { n: limits.maxDirectives },
    // Armor's cost rule knows no page sizes; the cost is weighed below instead.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: production },
  }).protect();
  const cost: ApolloServerPlugin<GatewayContext> = {
    requestDidStart: ({ schema }) =>
      Promise.resolve({
        didResolveOperation: ({ document, request, operationName, contextValue }) => {
          // The platform's own operations are fixed, and a test holds each of them within the limits.
          if (contextValue.client === undefined) return Promise.resolve();
          let found: number;
          try {
            found = cachedCostOf(schema, document, request.variables, operationName ?? undefined);
          } catch (error) {
            // Variables that do not fit their types cannot be weighed; the caller is told which.
            return Promise.reject(variablesError(error));
          }
          return found > limits.maxCost ? Promise.reject(costError(found, limits)) : Promise.resolve();
        },
      }),
  };
  return {
    plugins: [...(armor.plugins as ApolloServerPlugin<GatewayContext>[]), cost],
    validationRules: armor.validationRules,
    parseOptions: { maxTokens: limits.maxTokens },
  };
}

/** Parses a document the gateway handles itself (graphql-ws), within the token limit. */
export function parseWithinLimits(source: string, limits: QueryLimits): DocumentNode {
  return parse(source, { maxTokens: limits.maxTokens });
}

/**
 * Over HTTP graphql-armor masks "Did you mean …?" in production with an Apollo plugin, which
 * documents the gateway validates itself (graphql-ws) never pass through; this is its rule for them.
 */
export function withoutSuggestions(message: string): string {
  return message.replace(/Did you mean ".+"/g, '[Suggestion hidden]');
}

/** The same bounds for documents the gateway validates itself (graphql-ws subscriptions). */
export function queryLimitRules(limits: QueryLimits): ValidationRule[] {
  return new ApolloArmor({
    maxDepth: { n: limits.maxDepth },
    maxAliases: { n: limits.maxAliases },
    maxDirectives: { n: limits.maxDirectives },
    maxTokens: { enabled: false },
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: false },
  }).protect().validationRules;
}
