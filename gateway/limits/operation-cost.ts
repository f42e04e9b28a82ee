import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isCompositeType,
  isInputObjectType,
  isListType,
  Kind,
  parse,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  valueFromASTUntyped,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type TypeNode,
  type SelectionSetNode,
} from 'graphql';
import {
  INSIGHT_BUCKET_SIZES,
  INSIGHT_FIELDS,
  insightBucketsAsked,
  MAX_INSIGHT_BUCKETS,
} from '../../contracts/tickets/insights';

/**
 * Items assumed for a list that declares no size: the most the platform lets such a list hold (a
 * catalogue), so a document cannot hide its weight inside one.
 */
export const UNPAGED_LIST_SIZE = 100;

/** A field's `@listSize` from the cost specification (https://specs.apollo.dev/cost/v0.1). */
export interface ListSize {
  assumedSize?: number;
  slicingArguments: readonly string[];
  sizedFields: readonly string[];
}

/** A directive's arguments as plain values. */
function argumentsOf(directive: DirectiveNode): Record<string, unknown> {
  return Object.fromEntries(
    (directive.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value)]),
  );
}

/** A `@cost(weight:)` among a definition's directives, if any. */
function costOf(directives: readonly DirectiveNode[] | undefined): number | undefined {
  const weight = directives?.find((d) => d.name.value === 'cost');
  const value = weight === undefined ? undefined : argumentsOf(weight).weight;
  return typeof value === 'number' ? value : undefined;
}

function namedTypeOf(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type);
}

/**
 * The sizes and weights the subgraphs declared with `@listSize` and `@cost`, read from the composed
 * supergraph: the gateway's API schema drops the directives, so the estimate keeps them here. A
 * weight is a field's (`Type.field`), an argument's (`Type.field(argument:)`) or an input field's
 * (`Input.field`): the last two count where the operation gives them a value (a search).
 */
export class CostModel {
  private constructor(
    private readonly listSizes: ReadonlyMap<string, ListSize>,
    private readonly weights: ReadonlyMap<string, number>,
    /** The arguments that carry a weight, themselves or somewhere in the input they take. */
    private readonly weighedArguments: ReadonlySet<string>,
  ) {}

  static fromSupergraph(supergraphSdl: string): CostModel {
    const listSizes = new Map<string, ListSize>();
    const weights = new Map<string, number>();
    const definitions = parse(supergraphSdl).definitions;
    // Inputs that hold a weight, and the inputs they are used in, to the top.
    const inputs = new Map<string, string[]>();
    for (const definition of definitions) {
      if (definition.kind !== Kind.INPUT_OBJECT_TYPE_DEFINITION) continue;
      inputs.set(
        definition.name.value,
        (definition.fields ?? []).map((field) => namedTypeOf(field.type)),
      );
      for (const field of definition.fields ?? []) {
        const weight = costOf(field.directives);
        if (weight !== undefined) weights.set(`${definition.name.value}.${field.name.value}`, weight);
      }
    }
    const weighedInputs = new Set([...weights.keys()].map((key) => key.split('.')[0]!));
    for (let grown = true; grown;) {
      grown = false;
      for (const [input, fieldTypes] of inputs) {
        if (!weighedInputs.has(input) && fieldTypes.some((type) => weighedInputs.has(type))) {
          weighedInputs.add(input);
          grown = true;
        }
      }
    }
    const weighedArguments = new Set<string>();
    for (const definition of definitions) {
      if (
        definition.kind !== Kind.OBJECT_TYPE_DEFINITION &&
        definition.kind !== Kind.OBJECT_TYPE_EXTENSION &&
        definition.kind !== Kind.INTERFACE_TYPE_DEFINITION
      )
        continue;
      for (const field of definition.fields ?? []) {
        const key = `${definition.name.value}.${field.name.value}`;
        for (const directive of field.directives ?? []) {
          const args = argumentsOf(directive);
          if (directive.name.value === 'listSize') {
            listSizes.set(key, {
              ...(typeof args.assumedSize === 'number' ? { assumedSize: args.assumedSize } : {}),
              slicingArguments: (args.slicingArguments as string[] | undefined) ?? [],
              sizedFields: (args.sizedFields as string[] | undefined) ?? [],
            });
          }
        }
        const weight = costOf(field.directives);
        if (weight !== undefined) weights.set(key, weight);
        for (const argument of field.arguments ?? []) {
          const argumentWeight = costOf(argument.directives);
          if (argumentWeight !== undefined) weights.set(`${key}(${argument.name.value}:)`, argumentWeight);
          if (argumentWeight !== undefined || weighedInputs.has(namedTypeOf(argument.type))) {
            weighedArguments.add(argument.name.value);
          }
        }
      }
    }
    return new CostModel(listSizes, weights, weighedArguments);
  }

  listSizeOf(type: string, field: string): ListSize | undefined {
    return this.listSizes.get(`${type}.${field}`);
  }

  weightOf(type: string, field: string): number {
    return this.weights.get(`${type}.${field}`) ?? 1;
  }

  /** What an argument or an input field adds where it is given: 0 unless it declares a weight. */
  givenWeightOf(key: string): number {
    return this.weights.get(key) ?? 0;
  }

  /**
   * The names of every slicing argument, and of every argument that carries a weight: the
   * variables an estimate can depend on.
   */
  slicingArgumentNames(): ReadonlySet<string> {
    return new Set([
      ...[...this.listSizes.values()].flatMap((size) => size.slicingArguments),
      ...RANGE_ARGUMENTS,
      ...this.weighedArguments,
    ]);
  }
}

/** The arguments an insights field's size is read from. */
const RANGE_ARGUMENTS = ['from', 'to', 'bucket'] as const;

/**
 * The page an insights field answers (contracts/tickets/insights.ts): its `buckets` hold as many
 * buckets as its range asks for, at most the most it may ask for (beyond that the subgraph refuses
 * the range itself, naming `to`, which says more than a cost refusal would).
 */
function rangePage(parent: string, name: string, args: Record<string, unknown>): Sized | undefined {
  if (!(INSIGHT_FIELDS as readonly string[]).includes(`${parent}.${name}`)) return undefined;
  const bucket = INSIGHT_BUCKET_SIZES.find((size) => size === args.bucket);
  const from = new Date(String(args.from));
  const to = new Date(String(args.to));
  const asked =
    bucket === undefined || Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())
      ? 1
      : insightBucketsAsked(from, to, bucket);
  return { fields: ['buckets'], size: Math.min(Math.max(asked, 1), MAX_INSIGHT_BUCKETS) };
}

/** One field of an operation as weighed: its cost with what it selects, and how many items it counts. */
interface Weighed {
  name: string;
  cost: number;
  /** How many items this field multiplies what it selects by; 1 for a single value. */
  factor: number;
  children: Weighed[];
}

export interface CostEstimate {
  cost: number;
  /** The fields from the root down that weigh most at each step, with the lists' sizes on the way. */
  heaviest: { path: string[]; factors: number[] };
}

interface Walk {
  schema: GraphQLSchema;
  model: CostModel;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

/** The page a paged field answers: which of its lists hold the items, and how many. */
interface Sized {
  fields: readonly string[];
  size: number;
}

/**
 * The estimated cost of an operation (docs/FRONTEND.md, "The cost budget"): every field costs its
 * weight (1 unless declared with `@cost`) plus what it selects; a list multiplies what it selects
 * by its size: the value of its slicing argument (its default when not given), else its declared
 * `assumedSize`, else UNPAGED_LIST_SIZE. A paged field with `sizedFields` gives its size to those
 * lists of the page it answers. Introspection reads the schema, not data, so its lists are weighed
 * once. Variables that do not fit their types throw graphql-js's own error naming them.
 */
export function estimateCost(
  schema: GraphQLSchema,
  model: CostModel,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): CostEstimate {
  const nothing: CostEstimate = { cost: 0, heaviest: { path: [], factors: [] } };
  const operation = getOperationAST(document, operationName);
  if (operation === null || operation === undefined) return nothing;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors !== undefined) throw coerced.errors[0] ?? new GraphQLError('Invalid variables.');
  const root = schema.getRootType(operation.operation);
  if (root === undefined || root === null) return nothing;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  const walk: Walk = { schema, model, fragments, variables: coerced.coerced };
  const fields = weighSelections(walk, root, operation.selectionSet, undefined, undefined);
  return { cost: sum(fields), heaviest: heaviestPath(fields) };
}

function sum(fields: readonly Weighed[]): number {
  return fields.reduce((total, field) => total + field.cost, 0);
}

function weighSelections(
  walk: Walk,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  sized: Sized | undefined,
  /** Inside introspection: the lists already on this path; undefined outside it. */
  introspection: ReadonlySet<string> | undefined,
): Weighed[] {
  const weighed: Weighed[] = [];
  for (const selection of selectionSet.selections) {
    if (!included(walk, selection)) continue;
    if (selection.kind === Kind.FIELD) {
      const field = weighField(walk, parent, selection, sized, introspection);
      if (field !== undefined) weighed.push(field);
      continue;
    }
    const fragment =
      selection.kind === Kind.INLINE_FRAGMENT ? selection : walk.fragments[selection.name.value];
    if (fragment === undefined) continue;
    const condition = fragment.typeCondition
      ? walk.schema.getType(fragment.typeCondition.name.value)
      : parent;
    // A fragment on another type of an abstract field counts in full: the estimate stays an upper bound.
    const on =
      condition !== undefined && condition !== null && isCompositeType(condition) ? condition : parent;
    weighed.push(...weighSelections(walk, on, fragment.selectionSet, sized, introspection));
  }
  return weighed;
}

function included(walk: Walk, selection: SelectionSetNode['selections'][number]): boolean {
  const skip = getDirectiveValues(GraphQLSkipDirective, selection, walk.variables);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, selection, walk.variables);
  return include?.if !== false;
}

function fieldDefinition(
  walk: Walk,
  parent: GraphQLCompositeType,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (name === '__typename') return TypeNameMetaFieldDef;
  if (parent === walk.schema.getQueryType()) {
    if (name === '__schema') return SchemaMetaFieldDef;
    if (name === '__type') return TypeMetaFieldDef;
  }
  if (isAbstractType(parent) && !('getFields' in parent)) return undefined;
  return 'getFields' in parent ? parent.getFields()[name] : undefined;
}

function weighField(
  walk: Walk,
  parent: GraphQLCompositeType,
  node: FieldNode,
  sized: Sized | undefined,
  withinIntrospection: ReadonlySet<string> | undefined,
): Weighed | undefined {
  const name = node.name.value;
  const definition = fieldDefinition(walk, parent, name);
  if (definition === undefined) return undefined;
  const introspection = withinIntrospection ?? (name.startsWith('__') ? new Set<string>() : undefined);
  const listSize = introspection ? undefined : walk.model.listSizeOf(parent.name, name);
  const isListField = isListType(getNullableType(definition.type));
  // Introspection lists count once, as the standard query asks each once on a path; one asked
  // again below itself (`fields { type { fields` …) walks the schema over and over, and counts as data.
  const again = introspection !== undefined && isListField && introspection.has(name);
  const below =
    introspection !== undefined && isListField ? new Set([...introspection, name]) : introspection;
  const args = getArgumentValues(definition, node, walk.variables) as Record<string, unknown>;
  const sliced = slicedSize(listSize, args);
  const named = getNamedType(definition.type);
  const page =
    sliced !== undefined && listSize !== undefined && listSize.sizedFields.length > 0
      ? { fields: listSize.sizedFields, size: sliced }
      : introspection
        ? undefined
        : rangePage(parent.name, name, args);
  const children =
    node.selectionSet !== undefined && isCompositeType(named)
      ? weighSelections(walk, named, node.selectionSet, page, below)
      : [];
  const weight = introspection ? 1 : walk.model.weightOf(parent.name, name);
  const factor = again
    ? UNPAGED_LIST_SIZE
    : introspection
      ? 1
      : itemsOf(definition, listSize, sliced, page, sized, name);
  const selected = sum(children);
  const isList = factor > 1 || isListField;
  const given = introspection ? 0 : givenWeight(walk.model, `${parent.name}.${name}`, definition, args);
  return {
    name: node.alias?.value ?? name,
    // A list of scalars costs its items; a list of objects, its items' selections each.
    cost: weight + given + factor * (isList && (!introspection || again) ? Math.max(1, selected) : selected),
    factor,
    children,
  };
}

/**
 * What the arguments given to a field add: each argument's and each input field's declared weight
 * where the operation gives it a value (not null), at any depth of the input. The field pays it
 * once for the work it asks (a search), whatever it selects.
 */
function givenWeight(
  model: CostModel,
  field: string,
  definition: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
): number {
  let total = 0;
  for (const argument of definition.args) {
    const value = args[argument.name];
    if (value === undefined || value === null) continue;
    total += model.givenWeightOf(`${field}(${argument.name}:)`) + inputWeight(model, argument.type, value);
  }
  return total;
}

function inputWeight(model: CostModel, type: GraphQLInputType, value: unknown): number {
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const items: unknown[] = Array.isArray(value) ? value : [value];
    return items.reduce<number>((total, item) => total + inputWeight(model, nullable.ofType, item), 0);
  }
  if (!isInputObjectType(nullable) || typeof value !== 'object' || value === null) return 0;
  let total = 0;
  for (const field of Object.values(nullable.getFields())) {
    const given = (value as Record<string, unknown>)[field.name];
    if (given === undefined || given === null) continue;
    total += model.givenWeightOf(`${nullable.name}.${field.name}`) + inputWeight(model, field.type, given);
  }
  return total;
}

/** The largest value given to a slicing argument (its default when not given), if any. */
function slicedSize(listSize: ListSize | undefined, args: Record<string, unknown>): number | undefined {
  const sizes = (listSize?.slicingArguments ?? [])
    .map((argument) => args[argument])
    .filter((value): value is number => typeof value === 'number' && value >= 0);
  return sizes.length === 0 ? undefined : Math.max(...sizes);
}

/** How many items a field multiplies what it selects by. */
function itemsOf(
  definition: GraphQLField<unknown, unknown>,
  listSize: ListSize | undefined,
  sliced: number | undefined,
  page: Sized | undefined,
  sized: Sized | undefined,
  name: string,
): number {
  // A paged field that answers a page object: the page's sized lists count the items instead.
  if (page !== undefined) return 1;
  if (sliced !== undefined) return sliced;
  if (listSize?.assumedSize !== undefined) return listSize.assumedSize;
  if (sized !== undefined && sized.fields.includes(name)) return sized.size;
  return isListType(getNullableType(definition.type)) ? UNPAGED_LIST_SIZE : 1;
}

/** From the root down, the field that weighs most at each step, with the size of each list on the way. */
function heaviestPath(fields: readonly Weighed[]): CostEstimate['heaviest'] {
  const path: string[] = [];
  const factors: number[] = [];
  let level = fields;
  // The path ends at its last list: below it, nothing more multiplies.
  let end = 0;
  while (level.length > 0) {
    const heaviest = level.reduce((a, b) => (b.cost > a.cost ? b : a));
    path.push(heaviest.name);
    if (heaviest.factor > 1) {
      factors.push(heaviest.factor);
      end = path.length;
    }
    level = heaviest.children;
  }
  return { path: factors.length === 0 ? path : path.slice(0, end), factors };
}

/** `myVenues.branches: 10 × 20`, the heaviest path as a refusal names it. */
export function describeHeaviest({ path, factors }: CostEstimate['heaviest']): string {
  return `${path.join('.')}: ${factors.length === 0 ? '1' : factors.join(' × ')}`;
}
