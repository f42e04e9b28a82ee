import { createClient, type Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { accessChannel } from '../../contracts/tickets/access-change';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, signUpPerson, type SignedUp } from '../support/graph';
import { admin, platformEnv, startPlatform, type Platform } from '../support/platform';
import { waitUntil } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

type Result = Parameters<Parameters<Client['subscribe']>[1]['next']>[0];

interface Live {
  received: Result[];
  errors: unknown[];
  closes: number[];
  close(): Promise<void>;
}

const CREATE_DEVICE = `mutation ($i: CreateBoardDeviceInput!) {
  createBoardDevice(input: $i) { code url expiresAt device { id name prefix pairedAt branch { id name } } }
}`;
const PAIR = `mutation ($code: String!) { pairBoardDevice(code: $code) { secret device { id prefix pairedAt } } }`;
const CREATE_DISPLAY = `mutation ($i: CreateDisplayInput!) {
  createDisplay(input: $i) { url display { id name language chime speech readyMinutes branch { id } } }
}`;
const DISPLAY_BOARD = `query ($t: String!) {
  displayBoard(token: $t) { id name venueName branchId branchName language chime speech readyMinutes tickets { number status } }
}`;

describe('venue boards on the graph: paired board devices, displays, and their live feeds', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, {
      PUBLIC_WRITE_RATE_LIMIT: '1000',
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms',
    });
    events = await startEvents(platform.config);
  });

  afterAll(async () => {
    await events?.stop();
    await platform?.stop();
    await database.drop();
  });

  const graph = (
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) => askGraph(platform.gatewayUrl, query, variables, headers);

  async function data<T>(query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
    const reply = await graph(query, variables, headers);
    expect(reply.errors).toBeUndefined();
    return reply.data as T;
  }

  let people = 0;
  function person(): Promise<SignedUp> {
    people += 1;
    return signUpPerson(platform.gatewayUrl, {
      email: `board-person${people}@example.test`,
      name: `Person ${people}`,
    });
  }

  /** A venue on the starter plan (no API access) with one branch: boards need no plan upgrade. */
  async function venueWithBranch(owner: SignedUp) {
    const { createVenue } = await data<{ createVenue: { id: string } }>(
      'mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }',
      { i: { name: 'Counter Café' } },
      bearer(owner.token),
    );
    const { createBranch } = await data<{ createBranch: { id: string } }>(
      'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
      { i: { venueId: createVenue.id, name: 'Front' } },
      bearer(owner.token),
    );
    return { venueId: createVenue.id, branchId: createBranch.id };
  }

  /** A board device of the branch, paired: its id and its key. */
  async function pairedDevice(owner: SignedUp, branchId: string): Promise<{ id: string; secret: string }> {
    const { createBoardDevice } = await data<{ createBoardDevice: { code: string; device: { id: string } } }>(
      CREATE_DEVICE,
      { i: { branchId, name: 'Tablet' } },
      bearer(owner.token),
    );
    const { pairBoardDevice } = await data<{ pairBoardDevice: { secret: string } }>(
      PAIR,
      { code: createBoardDevice.code },
      {},
    );
    return { id: createBoardDevice.device.id, secret: pairBoardDevice.secret };
  }

  const subscribers = async () => {
    const response = await fetch(platform.gatewayUrl.replace(/\/graphql$/, '/healthz'));
    return ((await response.json()) as { subscribers: number }).subscribers;
  };

  async function live(
    query: string,
    variables: Record<string, unknown>,
    connectionParams: Record<string, unknown>,
  ): Promise<Live> {
    const before = await subscribers();
    const closes: number[] = [];
    const client = createClient({
      url: platform.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
      on: { closed: (event) => closes.push((event as { code: number }).code) },
    });
    const received: Result[] = [];
    const errors: unknown[] = [];
    const dispose = client.subscribe(
      { query, variables },
      {
        next: (result) => received.push(result),
        error: (error) => errors.push(error),
        complete: () => undefined,
      },
    );
    await waitUntil(
      async () => errors.length > 0 || closes.length > 0 || (await subscribers()) > before,
      10_000,
      'the subscription',
    );
    return {
      received,
      errors,
      closes,
      close: async () => {
        dispose();
        await client.dispose();
      },
    };
  }

  it('pairs a tablet once by its code; the device works tickets on a starter plan and manages nothing', async () => {
    const owner = await person();
    const { venueId, branchId } = await venueWithBranch(owner);
    const stranger = await person();
    const refused = await graph(CREATE_DEVICE, { i: { branchId, name: 'Tablet' } }, bearer(stranger.token));
    expect(refused.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const { createBoardDevice } = await data<{
      createBoardDevice: {
        code: string;
        url: string;
        expiresAt: string;
        device: { id: string; prefix: null };
      };
    }>(CREATE_DEVICE, { i: { branchId, name: 'Counter tablet' } }, bearer(owner.token));
    expect(createBoardDevice.code).toMatch(/^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/);
    expect(createBoardDevice.url).toBe(
      `${platform.config.publicBaseUrl}/board/pair#code=${createBoardDevice.code.replace('-', '')}`,
    );
    expect(Date.parse(createBoardDevice.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(createBoardDevice.device).toMatchObject({
      prefix: null,
      pairedAt: null,
      branch: { id: branchId },
    });

    // Typed on a tablet in lower case, with or without the dash.
    const { pairBoardDevice } = await data<{
      pairBoardDevice: { secret: string; device: { prefix: string } };
    }>(PAIR, { code: createBoardDevice.code.toLowerCase() }, {});
    expect(pairBoardDevice.secret).toMatch(/^bd_[A-Za-z0-9_-]{32}$/);
    expect(pairBoardDevice.device.prefix).toBe(pairBoardDevice.secret.slice(0, 11));
    const again = await graph(PAIR, { code: createBoardDevice.code }, {});
    expect(again.errors?.[0]).toMatchObject({
      message: 'This pairing code is wrong, already used or expired. Ask a manager for a new one.',
      extensions: { code: 'BAD_USER_INPUT' },
    });

    const device = bearer(pairBoardDevice.secret);
    const created = await data<{ createTicket: { ticket: { number: string; source: number } } }>(
      'mutation { createTicket(input: { number: "7" }) { ticket { number source } } }',
      {},
      device,
    );
    expect(created.createTicket.ticket.number).toBe('7');
    const manage = await graph(
      'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
      { i: { venueId, name: 'Sneaky' } },
      device,
    );
    expect(manage.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const listed = await data<{
      venue: { boardDevices: { id: string; prefix: string; pairedAt: string | null }[]; apiKeys: unknown[] };
    }>(
      'query ($id: ID!) { venue(id: $id) { boardDevices { id prefix pairedAt } apiKeys { id } } }',
      { id: venueId },
      bearer(owner.token),
    );
    expect(listed.venue.apiKeys).toEqual([]);
    expect(listed.venue.boardDevices).toEqual([
      {
        id: createBoardDevice.device.id,
        prefix: pairBoardDevice.device.prefix,
        pairedAt: expect.any(String) as unknown,
      },
    ]);

    await data(
      'mutation ($id: ID!) { revokeBoardDevice(id: $id) { revokedAt } }',
      { id: createBoardDevice.device.id },
      bearer(owner.token),
    );
    const afterRevoke = await graph('{ tickets { total } }', {}, device);
    expect(afterRevoke.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const log = await data<{ venue: { auditLog: { items: { action: string; actor: { type: string } }[] } } }>(
      'query ($id: ID!) { venue(id: $id) { auditLog { items { action actor { type } } } } }',
      { id: venueId },
      bearer(owner.token),
    );
    expect(log.venue.auditLog.items.slice(0, 3)).toEqual([
      { action: 'board_device.revoked', actor: { type: 'user' } },
      { action: 'board_device.paired', actor: { type: 'key' } },
      { action: 'board_device.created', actor: { type: 'user' } },
    ]);
  });

  it('refuses revokeApiKey on a board device’s id with NOT_FOUND naming revokeBoardDevice, changing nothing', async () => {
    const owner = await person();
    const { venueId, branchId } = await venueWithBranch(owner);
    const paired = await pairedDevice(owner, branchId);
    const deviceId = Number(paired.id);
    const device = bearer(paired.secret);
    const auditActions = async () =>
      (
        await data<{ venue: { auditLog: { items: { action: string }[] } } }>(
          'query ($id: ID!) { venue(id: $id) { auditLog { items { action } } } }',
          { id: venueId },
          bearer(owner.token),
        )
      ).venue.auditLog.items.map((item) => item.action);
    const auditedBefore = await auditActions();
    const listener = new Redis(platformEnv(platform.config).REDIS_URL!);
    const announced: { keyId?: number }[] = [];
    listener.on('message', (_channel: string, message: string) =>
      announced.push(JSON.parse(message) as { keyId?: number }),
    );
    await listener.subscribe(accessChannel(platform.config.redisPrefix));
    try {
      const REVOKE_KEY = 'mutation ($id: ID!) { revokeApiKey(id: $id) { id } }';
      const refused = await graph(REVOKE_KEY, { id: String(deviceId) }, bearer(owner.token));
      expect(refused.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
        ['NOT_FOUND', 'This id is a board device’s, not an API key’s: revoke it with revokeBoardDevice.'],
      ]);
      // The operator's CLI refuses the same, in the same words.
      await expect(admin(platform.config, 'key', 'revoke', '--id', String(deviceId))).rejects.toThrow(
        'key revoke: This id is a board device’s, not an API key’s: revoke it with revokeBoardDevice.',
      );
      // Whoever does not manage the venue learns nothing of the device.
      const stranger = await person();
      const hidden = await graph(REVOKE_KEY, { id: String(deviceId) }, bearer(stranger.token));
      expect(hidden.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
        ['NOT_FOUND', 'API key not found.'],
      ]);

      const works = await data<{ tickets: { total: number } }>('{ tickets { total } }', {}, device);
      expect(works.tickets.total).toBe(0);
      expect(await auditActions()).toEqual(auditedBefore);

      // The real revocation is announced after anything the refused ones could have announced.
      await data(
        'mutation ($id: ID!) { revokeBoardDevice(id: $id) { id } }',
        { id: String(deviceId) },
        bearer(owner.token),
      );
      await waitUntil(
        () => announced.some((change) => change.keyId === deviceId),
        10_000,
        'the device’s revocation announced',
      );
      expect(announced.filter((change) => change.keyId === deviceId)).toHaveLength(1);
      expect(await auditActions()).toEqual(['board_device.revoked', ...auditedBefore]);
    } finally {
      listener.disconnect();
    }
  });

  it('feeds a board live for a device or a member’s session, and closes a revoked device’s socket', async () => {
    const owner = await person();
    const { branchId } = await venueWithBranch(owner);
    const paired = await pairedDevice(owner, branchId);
    const BOARD = 'subscription { branchTicketsUpdated { number status customerName } }';
    const tablet = await live(BOARD, {}, { authorization: `Bearer ${paired.secret}` });
    const member = await live(BOARD, {}, { authorization: `Bearer ${owner.token}`, 'x-branch-id': branchId });
    try {
      const staff = { ...bearer(owner.token), 'x-branch-id': branchId };
      const { createTicket } = await data<{ createTicket: { ticket: { id: string } } }>(
        'mutation { createTicket(input: { number: "12", customerName: "Huda" }) { ticket { id } } }',
        {},
        staff,
      );
      await data(
        'mutation ($id: ID) { markTicketReady(id: $id) { status } }',
        { id: createTicket.ticket.id },
        staff,
      );
      for (const board of [tablet, member]) {
        await waitUntil(() => board.received.length >= 2, 10_000, 'the board’s two events');
        expect(board.received.map((r) => r.data)).toEqual([
          { branchTicketsUpdated: { number: '12', status: 'WAITING', customerName: 'Huda' } },
          { branchTicketsUpdated: { number: '12', status: 'READY', customerName: 'Huda' } },
        ]);
      }

      await data(
        'mutation ($id: ID!) { revokeBoardDevice(id: $id) { id } }',
        { id: paired.id },
        bearer(owner.token),
      );
      await waitUntil(() => tablet.closes.length > 0, 10_000, 'the revoked device’s socket to close');
      expect(tablet.closes[0]).toBe(4403);
      expect(member.closes).toEqual([]);

      // Signing out closes the member's board at once: it was reading customers' names.
      await data('mutation { signOut }', {}, bearer(owner.token));
      await waitUntil(() => member.closes.length > 0, 10_000, 'the signed-out member’s socket to close');
      expect(member.closes[0]).toBe(4403);
    } finally {
      await tablet.close();
      await member.close();
    }
  });

  it('sends one signed ticket.ready webhook for a ready marked on a board, as for any other door', async () => {
    const owner = await person();
    const { venueId, branchId } = await venueWithBranch(owner);
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      const { addWebhookEndpoint } = await data<{ addWebhookEndpoint: { secret: string } }>(
        'mutation ($i: AddWebhookEndpointInput!) { addWebhookEndpoint(input: $i) { secret } }',
        { i: { venueId, url, events: ['ticket.ready'] } },
        bearer(owner.token),
      );
      receiver.secret = addWebhookEndpoint.secret;
      const device = bearer((await pairedDevice(owner, branchId)).secret);
      const { createTicket } = await data<{ createTicket: { ticket: { id: string } } }>(
        'mutation { createTicket(input: { number: "5" }) { ticket { id } } }',
        {},
        device,
      );
      await data(
        'mutation ($id: ID) { markTicketReady(id: $id) { status } }',
        { id: createTicket.ticket.id },
        device,
      );
      // Marking it again is refused by the state rules, so nothing more can be sent.
      const twice = await graph(
        'mutation ($id: ID) { markTicketReady(id: $id) { status } }',
        { id: createTicket.ticket.id },
        device,
      );
      expect(twice.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      await receiver.waitFor((received) => received.length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(
        receiver.received.map((hook) => [hook.json.event, hook.verdict.ok, hook.json.data.ticket.id]),
      ).toEqual([['ticket.ready', true, Number(createTicket.ticket.id)]]);
    } finally {
      await receiver.stop();
    }
  });

  it('shows a display its branch’s numbers by its token, live, and nothing once revoked', async () => {
    const owner = await person();
    const { venueId, branchId } = await venueWithBranch(owner);
    const { createDisplay } = await data<{
      createDisplay: { url: string; display: { id: string; language: string; readyMinutes: number } };
    }>(CREATE_DISPLAY, { i: { branchId, name: 'Hall TV' } }, bearer(owner.token));
    expect(createDisplay.url).toMatch(
      new RegExp(`^${platform.config.publicBaseUrl}/display/dsp_[A-Za-z0-9_-]{43}$`),
    );
    expect(createDisplay.display).toMatchObject({
      language: 'ar',
      readyMinutes: 10,
      chime: true,
      speech: true,
    });
    const token = createDisplay.url.split('/').at(-1)!;

    const bad = await graph(
      CREATE_DISPLAY,
      { i: { branchId, name: '', language: 'fr', readyMinutes: 0 } },
      bearer(owner.token),
    );
    expect(bad.errors?.[0]?.extensions?.errors).toEqual({
      name: [expect.any(String)],
      language: ['The selected language is invalid (choose ar, en).'],
      readyMinutes: ['The readyMinutes field must be between 1 and 240.'],
    });

    const staff = { ...bearer(owner.token), 'x-branch-id': branchId };
    const { createTicket } = await data<{ createTicket: { ticket: { id: string } } }>(
      'mutation { createTicket(input: { number: "42", customerName: "Zaid" }) { ticket { id } } }',
      {},
      staff,
    );
    const board = await data<{ displayBoard: Record<string, unknown> }>(DISPLAY_BOARD, { t: token }, {});
    expect(board.displayBoard).toEqual({
      id: createDisplay.display.id,
      name: 'Hall TV',
      venueName: 'Counter Café',
      branchId,
      branchName: 'Front',
      language: 'ar',
      chime: true,
      speech: true,
      readyMinutes: 10,
      tickets: [{ number: '42', status: 'WAITING' }],
    });
    // A display reads numbers, never what the customer or the business wrote.
    const nosy = await graph(
      'subscription ($t: String!) { displayTicketsUpdated(token: $t) { number customerName } }',
      { t: token },
    );
    expect(nosy.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');

    const screen = await live(
      'subscription ($t: String!) { displayTicketsUpdated(token: $t) { number status ringCount } }',
      { t: token },
      {},
    );
    try {
      await data(
        'mutation ($id: ID) { markTicketReady(id: $id) { status } }',
        { id: createTicket.ticket.id },
        staff,
      );
      await waitUntil(() => screen.received.length >= 1, 10_000, 'the READY number on the display');
      expect(screen.received[0]!.data).toEqual({
        displayTicketsUpdated: { number: '42', status: 'READY', ringCount: 1 },
      });

      await data(
        'mutation ($i: UpdateDisplayInput!) { updateDisplay(input: $i) { language speech } }',
        { i: { displayId: createDisplay.display.id, language: 'en', speech: false } },
        bearer(owner.token),
      );
      await waitUntil(() => screen.closes.length > 0, 10_000, 'the changed display’s socket to close');
      expect(screen.closes[0]).toBe(4205);
      const changed = await data<{ displayBoard: { language: string; speech: boolean } }>(
        DISPLAY_BOARD,
        { t: token },
        {},
      );
      expect(changed.displayBoard).toMatchObject({ language: 'en', speech: false });
    } finally {
      await screen.close();
    }

    await data(
      'mutation ($id: ID!) { revokeDisplay(id: $id) { revokedAt } }',
      { id: createDisplay.display.id },
      bearer(owner.token),
    );
    const gone = await graph(DISPLAY_BOARD, { t: token }, {});
    expect(gone.errors?.[0]).toMatchObject({
      message: 'Display not found.',
      extensions: { code: 'NOT_FOUND' },
    });
    const refused = await live(
      'subscription ($t: String!) { displayTicketsUpdated(token: $t) { number } }',
      { t: token },
      {},
    );
    await waitUntil(() => refused.received.length + refused.errors.length > 0, 10_000, 'the refusal');
    await refused.close();
    expect(refused.received[0]?.errors?.[0]).toMatchObject({
      message: 'Display not found.',
      extensions: { code: 'NOT_FOUND' },
    });

    const log = await data<{ venue: { auditLog: { items: { action: string }[] } } }>(
      'query ($id: ID!) { venue(id: $id) { auditLog(first: 3) { items { action } } } }',
      { id: venueId },
      bearer(owner.token),
    );
    expect(log.venue.auditLog.items.map((item) => item.action)).toEqual([
      'display.revoked',
      'display.updated',
      'display.created',
    ]);
  });
});
