import {
  Kind,
  print,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type VariableDefinitionNode,
} from 'graphql';

/** The variable the gateway query of a live event binds to the ticket's id. */
export const LIVE_TICKET_ID = '__liveTicketId';

/**
 * How one subscription operation turns each live event into the result its subscriber sees. Fields
 * the event carries are answered from the event itself; a selection that reaches beyond them (the
 * ticket's branch, the venue's plan from billing) runs as the equivalent `ticket(id)` query through
 * the gateway, with the subscriber's own credentials.
 */
export interface LivePlan {
  /** The subscription as sent, with its fragments: executed against the event's ticket. */
  document: DocumentNode;
  /** The names of the ticket's fields the selection reads, at any depth of fragments. */
  fields: ReadonlySet<string>;
  /** True when some selected field has a selection of its own (an object beyond the event). */
  nested: boolean;
  /** The same selection as a `ticket(id)` query, for events whose payload cannot answer it. */
  query: string;
}

export function livePlanOf(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  rootField: FieldNode,
): LivePlan {
  const fields = new Set<string>();
  let nested = false;
  const seen = new Set<string>();
  const walk = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        fields.add(selection.name.value);
        if (selection.selectionSet !== undefined) nested = true;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments[selection.name.value];
        if (fragment !== undefined) walk(fragment.selectionSet);
      }
    }
  };
  if (rootField.selectionSet !== undefined) walk(rootField.selectionSet);
  const fragmentList = Object.values(fragments);
  return {
    document: { kind: Kind.DOCUMENT, definitions: [operation, ...fragmentList] },
    fields,
    nested,
    query: print(ticketQueryOf(operation, fragmentList, rootField)),
  };
}

/** `query { <response key>: ticket(id: $__liveTicketId) { …the subscription's selection } }`. */
function ticketQueryOf(
  operation: OperationDefinitionNode,
  fragments: FragmentDefinitionNode[],
  rootField: FieldNode,
): DocumentNode {
  const field: FieldNode = {
    ...rootField,
    alias: rootField.alias ?? rootField.name,
    name: { kind: Kind.NAME, value: 'ticket' },
    arguments: [
      {
        kind: Kind.ARGUMENT,
        name: { kind: Kind.NAME, value: 'id' },
        value: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: LIVE_TICKET_ID } },
      },
    ],
  };
  const idVariable: VariableDefinitionNode = {
    kind: Kind.VARIABLE_DEFINITION,
    variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: LIVE_TICKET_ID } },
    type: {
      kind: Kind.NON_NULL_TYPE,
      type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: 'ID' } },
    },
  };
  const query: OperationDefinitionNode = {
    ...operation,
    operation: 'query' as OperationDefinitionNode['operation'],
    selectionSet: { kind: Kind.SELECTION_SET, selections: [field] },
  };
  // A variable only the subscription field's arguments used (the token) would fail validation as unused.
  const used = new Set<string>();
  for (const node of [query.selectionSet, ...fragments]) {
    visit(node, {
      Variable(variable) {
        used.add(variable.name.value);
      },
    });
  }
  return {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        ...query,
        variableDefinitions: [
          ...(operation.variableDefinitions ?? []).filter((d) => used.has(d.variable.name.value)),
          idVariable,
        ],
      },
      ...fragments,
    ],
  };
}
