import { getOperationAST, parse } from 'graphql';
import { mayReplayOfflineWork, replaysOfflineWork } from './sync-operations';

/** Whether the document's operation replays offline work with these variables. */
function replays(query: string, variables: Record<string, unknown> = {}): boolean {
  const document = parse(query);
  return replaysOfflineWork(document, getOperationAST(document)!, variables);
}

describe('which operations replay a board’s offline work (the sync allowance)', () => {
  it('takes a mutation whose every root field carries occurredAt, as a literal or a variable with a value', () => {
    expect(replays('mutation { markTicketReady(id: "1", occurredAt: "2026-01-01T00:00:00Z") { id } }')).toBe(
      true,
    );
    expect(
      replays(
        'mutation ($at: DateTimeISO) { a: cancelTicket(id: "1", occurredAt: $at) { id } ...More }\n' +
          'fragment More on Mutation { b: cancelTicket(id: "2", occurredAt: $at) { id } }',
        { at: '2026-01-01T00:00:00Z' },
      ),
    ).toBe(true);
  });

  it('takes nothing else: a query, a root field without it, a null or missing variable', () => {
    expect(replays('query { ticket(id: "1") { id } }')).toBe(false);
    expect(
      replays(
        'mutation { a: markTicketReady(id: "1", occurredAt: "2026-01-01T00:00:00Z") { id } b: ringTicket(id: "1") { id } }',
      ),
    ).toBe(false);
    expect(replays('mutation { markTicketReady(id: "1", occurredAt: null) { id } }')).toBe(false);
    const variable = 'mutation ($at: DateTimeISO) { markTicketReady(id: "1", occurredAt: $at) { id } }';
    expect(replays(variable, { at: null })).toBe(false);
    expect(replays(variable)).toBe(false);
    expect(replays(variable, { at: '2026-01-01T00:00:00Z' })).toBe(true);
  });

  it('hints from the text alone, before parsing, only that it names occurredAt', () => {
    expect(mayReplayOfflineWork('mutation { markTicketReady(id: "1", occurredAt: $at) { id } }')).toBe(true);
    expect(mayReplayOfflineWork('{ currentBranch { id } }')).toBe(false);
    expect(mayReplayOfflineWork(undefined)).toBe(false);
  });
});
