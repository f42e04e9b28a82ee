import { accessChannel } from '../../contracts/tickets/access-change';
import { liveEventsChannel, type LiveEvent } from '../../contracts/tickets/live-event';
import { liveFeedHandlers, type LiveFeedReceivers } from './live-feed';
import { recordingLogger } from '../../test/support/recording-logger';

const PREFIX = 'spec:';

/** The hub and the access registry as the feed hands them messages: what each got, in order. */
function recordingReceivers(sockets: { close(code: number, reason: string): void }[] = [], subscribers = 12) {
  const got: string[] = [];
  const { logger, lines } = recordingLogger<{ level: number; msg: string; subscribers?: number }>();
  const receivers: LiveFeedReceivers = {
    hub: { dispatch: (event: LiveEvent) => got.push(`hub ${event.id}`), subscribers },
    access: { announce: (message: string) => got.push(`access ${message}`) },
    sockets,
    ticketsChanged: () => got.push('tickets changed'),
    logger,
  };
  return { receivers, got, lines };
}

const eventJson = (id: string) => JSON.stringify({ id, event: 'ticket.ready', token: 't', branchId: 3 });

describe('liveFeedHandlers: what the live server does with each message of its Redis subscription', () => {
  it('hands access announcements to access and live events to the hub, in the order they come', () => {
    const { receivers, got } = recordingReceivers();
    const handlers = liveFeedHandlers(PREFIX, receivers);
    handlers.message(liveEventsChannel(PREFIX), eventJson('e1'));
    handlers.message(accessChannel(PREFIX), '{"venueId":7}');
    handlers.message(liveEventsChannel(PREFIX), eventJson('e2'));
    // Shared tickets reads from before an event end before its subscribers get it.
    expect(got).toEqual(['tickets changed', 'hub e1', 'access {"venueId":7}', 'tickets changed', 'hub e2']);
  });

  it('skips an unreadable event with a warning and goes on with the next', async () => {
    const { receivers, got, lines } = recordingReceivers();
    const handlers = liveFeedHandlers(PREFIX, receivers);
    handlers.message(liveEventsChannel(PREFIX), '{not json');
    handlers.message(liveEventsChannel(PREFIX), eventJson('e3'));
    expect(got).toEqual(['tickets changed', 'tickets changed', 'hub e3']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => line.msg)).toEqual(['unreadable live event']);
  });

  it('reads no live event while the process has no subscriber, and still hands access announcements on', async () => {
    const { receivers, got, lines } = recordingReceivers([], 0);
    const handlers = liveFeedHandlers(PREFIX, receivers);
    handlers.message(liveEventsChannel(PREFIX), eventJson('e4'));
    handlers.message(liveEventsChannel(PREFIX), '{not json');
    handlers.message(accessChannel(PREFIX), '{"venueId":8}');
    expect(got).toEqual(['tickets changed', 'tickets changed', 'access {"venueId":8}']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([]);
  });

  it('closes every open socket with 1013 when the subscription is lost, and says how many subscribers it had', async () => {
    const closed: [number, string][] = [];
    const socket = { close: (code: number, reason: string) => closed.push([code, reason]) };
    const { receivers, lines } = recordingReceivers([socket, socket]);
    const handlers = liveFeedHandlers(PREFIX, receivers);
    handlers.lost();
    expect(closed).toEqual([
      [1013, 'Live updates are unavailable; reconnect shortly'],
      [1013, 'Live updates are unavailable; reconnect shortly'],
    ]);
    handlers.restored();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => [line.msg, line.subscribers])).toEqual([
      ['live events subscription lost; closing subscriber sockets so they reconnect and refetch', 12],
      ['live events subscription restored; accepting subscribers again', undefined],
    ]);
  });
});
