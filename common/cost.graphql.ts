import { Directive } from 'type-graphql';

/**
 * The cost directives of Apollo Federation 2.9+ (`https://specs.apollo.dev/cost/v0.1`, after the IBM
 * GraphQL cost specification), as decorators for type-graphql fields. Composition carries them into
 * the supergraph, where the gateway's estimate reads them (gateway/limits/operation-cost.ts); the sizes a
 * subgraph declares, and why, are listed in docs/API-DECISIONS.md.
 */
export const COST_LINK = '@link(url: "https://specs.apollo.dev/cost/v0.1", import: ["@cost", "@listSize"])';

/** An unpaged list that holds at most about `size` items (a person's venues, a venue's branches). */
export function AssumedSize(size: number): MethodDecorator & PropertyDecorator {
  return Directive(`@listSize(assumedSize: ${size})`);
}

/**
 * A paged list: it holds as many items as its page-size argument says (its default when not given).
 * With `sizedFields`, the field answers a page object and those of its lists hold the items.
 */
export function SlicedBy(
  argument: string,
  sizedFields: readonly string[] = [],
): MethodDecorator & PropertyDecorator {
  const sized =
    sizedFields.length === 0 ? '' : `, sizedFields: [${sizedFields.map((f) => `"${f}"`).join(', ')}]`;
  // Every page-size argument has a default, so a query may leave it out.
  return Directive(`@listSize(slicingArguments: ["${argument}"]${sized}, requireOneSlicingArgument: false)`);
}

/** A field that costs more than reading a stored value: `weight` times an ordinary field. */
export function Cost(weight: number): MethodDecorator & PropertyDecorator {
  return Directive(`@cost(weight: ${weight})`);
}
