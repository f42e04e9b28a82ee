import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  visit,
  parse,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import type { Config } from '../../common/config';
import type { GatewayContext } from '../context';
import { describeHeaviest, estimateCost, type CostEstimate, type CostModel } from './operation-cost';

/** What one operation may ask of the gateway, from the configuration (GRAPHQL_MAX_*). */
export type QueryLimits = Config['graphqlLimits'];

/**
 * The variables an operation's cost can depend on: those given, anywhere in its value, to a slicing
 * argument or to an argument that carries a weight (a filter with a search), or as the condition of
 * `@include`/`@skip`. Every other variable (an id, an input) leaves the estimate as it is.
 */
function costVariablesOf(document: DocumentNode, model: CostModel): string[] {
  const slicing = model.slicingArgumentNames();
  const names = new Set<string>();
  const variableOf = (argument: ArgumentNode | undefined) => {
    if (argument === undefined) return;
    visit(argument.value, {
      Variable(variable) {
        names.add(variable.name.value);
      },
    });
  };
  visit(document, {
    Field(node) {
      for (const argument of node.arguments ?? []) {
        if (slicing.has(argument.name.value)) variableOf(argument);
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
const estimates = new WeakMap<DocumentNode, { variables: string[]; costs: Map<string, CostEstimate> }>();
const ESTIMATES_PER_DOCUMENT = 64;

/**
 * estimateCost, remembered per parsed document (Apollo hands the same DocumentNode to every request
 * of the same text) and the values of its cost variables: a busy operation is weighed once, not on
 * every request.
 */
export function cachedEstimateOf(
  schema: GraphQLSchema,
  model: CostModel,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): CostEstimate {
  let entry = estimates.get(document);
  if (entry === undefined)
    estimates.set(document, (entry = { variables: costVariablesOf(document, model), costs: new Map() }));
  const key = JSON.stringify([
    operationName ?? null,
    ...entry.variables.map((name) => variables?.[name] ?? null),
  ]);
  let estimate = entry.costs.get(key);
  if (estimate === undefined) {
    estimate = estimateCost(schema, model, document, variables, operationName);
    if (entry.costs.size >= ESTIMATES_PER_DOCUMENT) entry.costs.clear();
    entry.costs.set(key, estimate);
  }
  return estimate;
}

/**
 * The refusal of an operation over the cost limit: a 400, like the other limits, naming the
 * estimate, the limit and the path that weighs most, so the caller knows which list to page.
 */
export function costError(estimate: CostEstimate, limits: QueryLimits): GraphQLError {
  const heaviest = describeHeaviest(estimate.heaviest);
  return new GraphQLError(
    `Query cost limit of ${limits.maxCost} exceeded, found ${estimate.cost} (GRAPHQL_MAX_COST). ` +
      `It weighs most at ${heaviest}: ask that list for fewer items (first, last, perPage) or split the query.`,
    {
      extensions: {
        code: 'GRAPHQL_VALIDATION_FAILED',
        http: { status: 400 },
        cost: {
          estimated: estimate.cost,
          limit: limits.maxCost,
          heaviestPath: estimate.heaviest.path.join('.'),
          listSizes: estimate.heaviest.factors,
        },
      },
    },
  );
}

/** Variables the estimator could not coerce: the caller's mistake, named as graphql-js names it. */
function variablesError(error: unknown): GraphQLError {
  const message = error instanceof Error ? error.message : String(error);
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
}

/** The cost plugin's rule as a function: whether it lets a client's operation through. */
export type CostCheck = (
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
) => boolean;

/**
 * The gateway's bounds on every operation, before it is planned: tokens by graphql-js's own
 * parser (which stops reading at the limit), depth, aliases and directives through graphql-armor's
 * validation rules, the cost from the subgraphs' declared list sizes once the variables are known. Field
 * suggestions ("Did you mean …?") are masked in production, where introspection is off too.
 */
export function queryLimitOptions(
  limits: QueryLimits,
  production: boolean,
  model: CostModel,
): {
  plugins: ApolloServerPlugin<GatewayContext>[];
  validationRules: ValidationRule[];
  parseOptions: { maxTokens: number };
  withinCost: CostCheck;
} {
  const armor = new ApolloArmor({
    maxDepth: { n: limits.maxDepth },
    maxAliases: { n: limits.maxAliases },
    // Armor counts tokens in a second parse and fails as a 500; graphql-js's limit is a 400.
    maxTokens: { enabled: false },
    maxDirectives: { n: limits.maxDirectives },
    // Armor's cost rule knows no declared list sizes; the cost is weighed below instead.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: production },
  }).protect();
  const cost: ApolloServerPlugin<GatewayContext> = {
    requestDidStart: ({ schema }) =>
      Promise.resolve({
        didResolveOperation: ({ document, request, operationName, contextValue }) => {
          // The platform's own operations are fixed, and a test holds each of them within the limits.
          if (contextValue.client === undefined) return Promise.resolve();
          let found: CostEstimate;
          try {
            found = cachedEstimateOf(schema, model, document, request.variables, operationName ?? undefined);
          } catch (error) {
            // Variables that do not fit their types cannot be weighed; the caller is told which.
            return Promise.reject(variablesError(error));
          }
          return found.cost > limits.maxCost ? Promise.reject(costError(found, limits)) : Promise.resolve();
        },
      }),
  };
  return {
    plugins: [...(armor.plugins as ApolloServerPlugin<GatewayContext>[]), cost],
    validationRules: [...armor.validationRules, maxMutationFieldsRule(limits.maxMutationFields)],
    parseOptions: { maxTokens: limits.maxTokens },
    withinCost: (schema, document, variables, operationName) => {
      try {
        return cachedEstimateOf(schema, model, document, variables, operationName).cost <= limits.maxCost;
      } catch {
        return false;
      }
    },
  };
}

/**
 * The root fields an operation runs: its distinct response keys at the root, through fragments,
 * whatever `@skip` or `@include` later say; `__typename` is none (it reads nothing). Two fields of
 * one response key are merged into one by graphql-js, so they are one.
 */
export function rootFieldsOf(
  selectionSet: SelectionSetNode,
  fragmentOf: (name: string) => FragmentDefinitionNode | undefined,
  keys = new Map<string, FieldNode[]>(),
  spread = new Set<string>(),
): Map<string, FieldNode[]> {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== '__typename') {
        const key = selection.alias?.value ?? selection.name.value;
        keys.set(key, [...(keys.get(key) ?? []), selection]);
      }
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      rootFieldsOf(selection.selectionSet, fragmentOf, keys, spread);
    } else if (!spread.has(selection.name.value)) {
      // Each fragment once: a cycle is graphql-js's own validation error, not a hang here.
      spread.add(selection.name.value);
      const fragment = fragmentOf(selection.name.value);
      if (fragment !== undefined) rootFieldsOf(fragment.selectionSet, fragmentOf, keys, spread);
    }
  }
  return keys;
}

/** Root fields counted per operation node (Apollo hands the same parsed document to every request). */
const workUnits = new WeakMap<OperationDefinitionNode, number>();

/**
 * How much an operation counts against its credential's budget: one per root field (at least one),
 * so fifteen aliased `createTicket` fields cost what fifteen requests would.
 */
export function workUnitsOf(document: DocumentNode, operation: OperationDefinitionNode): number {
  let units = workUnits.get(operation);
  if (units === undefined) {
    const fragmentOf = (name: string) =>
      document.definitions.find(
        (definition): definition is FragmentDefinitionNode =>
          definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === name,
      );
    units = Math.max(1, rootFieldsOf(operation.selectionSet, fragmentOf).size);
    workUnits.set(operation, units);
  }
  return units;
}

/**
 * At most `max` root fields in a mutation, aliases counting (GRAPHQL_MAX_MUTATION_FIELDS): each is a
 * write of its own, and one operation should not carry a batch no client of the platform sends.
 */
export function maxMutationFieldsRule(max: number): ValidationRule {
  return (context) => ({
    OperationDefinition(node) {
      if (node.operation !== OperationTypeNode.MUTATION) return;
      const count = rootFieldsOf(node.selectionSet, (name) => context.getFragment(name) ?? undefined).size;
      if (count <= max) return;
      context.reportError(
        new GraphQLError(
          `A mutation may have at most ${max} root fields, aliases counting (GRAPHQL_MAX_MUTATION_FIELDS); ` +
            `this one has ${count}. Send the rest in another operation.`,
          { nodes: [node] },
        ),
      );
    },
  });
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
  return [
    ...new ApolloArmor({
      maxDepth: { n: limits.maxDepth },
      maxAliases: { n: limits.maxAliases },
      maxDirectives: { n: limits.maxDirectives },
      maxTokens: { enabled: false },
      costLimit: { enabled: false },
      blockFieldSuggestion: { enabled: false },
    }).protect().validationRules,
    maxMutationFieldsRule(limits.maxMutationFields),
  ];
}
