import {
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';
import { rootFieldsOf } from './query-limits';

/** The argument by which a board replaying its offline work says when each change happened. */
export const OCCURRED_AT = 'occurredAt';

/**
 * Each operation's replay shape, by operation node (Apollo hands one parsed document to every
 * request): null when it is none, else the variables its `occurredAt` arguments read.
 */
const shapes = new WeakMap<OperationDefinitionNode, readonly string[] | null>();

function replayShapeOf(document: DocumentNode, operation: OperationDefinitionNode): readonly string[] | null {
  if (operation.operation !== OperationTypeNode.MUTATION) return null;
  const fragmentOf = (name: string) =>
    document.definitions.find(
      (definition): definition is FragmentDefinitionNode =>
        definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === name,
    );
  const fields = [...rootFieldsOf(operation.selectionSet, fragmentOf).values()].flat();
  const read: string[] = [];
  for (const field of fields) {
    const value = field.arguments?.find((argument) => argument.name.value === OCCURRED_AT)?.value;
    if (value === undefined || value.kind === Kind.NULL) return null;
    if (value.kind === Kind.VARIABLE) read.push(value.name.value);
  }
  return fields.length > 0 ? read : null;
}

/**
 * Whether an operation replays work a board did offline: a mutation every root field of which
 * carries `occurredAt` (through fragments), given as a literal or as a variable whose value is not
 * null. Such an operation may count against a board device's sync allowance
 * (CredentialBudgets.takeSync); one root field without it makes the whole operation ordinary.
 */
export function replaysOfflineWork(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
): boolean {
  let shape = shapes.get(operation);
  if (shape === undefined) {
    shape = replayShapeOf(document, operation);
    shapes.set(operation, shape);
  }
  return shape !== null && shape.every((name) => variables[name] !== undefined && variables[name] !== null);
}

/**
 * Whether an operation's text may be such a replay, read before it is parsed (graphql-ws counts an
 * operation before parsing it): it names `occurredAt`. Only a hint; the parsed operation decides.
 */
export function mayReplayOfflineWork(query: unknown): boolean {
  return typeof query === 'string' && query.includes(OCCURRED_AT);
}
