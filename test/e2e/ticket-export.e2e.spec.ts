import {
  signTicketExportLink,
  TICKET_CSV_COLUMNS,
  type TicketExportLink,
} from '../../contracts/tickets/ticket-export';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { askGraph, bearer, graphData, type SignedUp } from '../support/graph';
import { newBranchKey, startPlatform, type Platform } from '../support/platform';
import { venuePeople } from '../support/venue-people';

const EXPORT = `query ($branchId: ID!, $from: DateTimeISO!, $to: DateTimeISO!) {
  exportTicketsCsv(branchId: $branchId, from: $from, to: $to) { url expiresAt }
}`;

/** RFC 4180 as a spreadsheet reads it: quoted fields may hold separators, quotes and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

describe('the tickets CSV export: who may have it, what the link opens, what the file holds', () => {
  let database: TestDatabase;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database, { PUBLIC_WRITE_RATE_LIMIT: '1000' });
  });

  afterAll(async () => {
    await platform?.stop();
    await database?.drop();
  });

  const graph = (query: string, variables: Record<string, unknown>, headers: Record<string, string>) =>
    askGraph(platform.gatewayUrl, query, variables, headers);
  const data = <T>(query: string, variables: Record<string, unknown>, headers: Record<string, string>) =>
    graphData<T>(platform.gatewayUrl, query, variables, headers);
  const errorOf = async (variables: Record<string, unknown>, headers: Record<string, string>) =>
    (await graph(EXPORT, variables, headers)).errors?.[0]?.extensions;
  /** The link as the adapter in this test serves it (PUBLIC_BASE_URL names no real host). */
  const local = (url: string) => url.replace(platform.config.publicBaseUrl, new URL(platform.restUrl).origin);

  const people = venuePeople(
    () => platform.gatewayUrl,
    () => database,
    'export',
  );

  let owner: SignedUp;
  let manager: SignedUp;
  let staff: SignedUp;
  let stranger: SignedUp;
  let venueId: string;
  let branchId: string;
  let key: string;
  const range = () => ({
    branchId,
    from: new Date(Date.now() - 3_600_000).toISOString(),
    to: new Date(Date.now() + 3_600_000).toISOString(),
  });

  beforeAll(async () => {
    ({ owner, manager, staff, stranger, venueId, branchId } = await people.venueWithPeople({
      name: 'مطعم أربيل',
      language: 'ar',
    }));
    await data(
      'mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }',
      { i: { venueId, plan: 'growth' } },
      bearer(owner.token),
    );
    ({ key } = await newBranchKey(platform.config, Number(branchId)));
  });

  it('makes a link for owners and managers only, as insights answers the rest', async () => {
    for (const reader of [owner, manager]) {
      const { exportTicketsCsv } = await data<{ exportTicketsCsv: { url: string; expiresAt: string } }>(
        EXPORT,
        range(),
        bearer(reader.token),
      );
      expect(exportTicketsCsv.url.startsWith(`${platform.config.publicBaseUrl}/exports/tickets.csv?`)).toBe(
        true,
      );
      const lifetime = new Date(exportTicketsCsv.expiresAt).getTime() - Date.now();
      expect(lifetime).toBeGreaterThan(55_000);
      expect(lifetime).toBeLessThanOrEqual(60_000);
    }
    const { createBoardDevice } = await data<{ createBoardDevice: { code: string } }>(
      'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { code } }',
      { i: { branchId, name: 'Tablet' } },
      bearer(owner.token),
    );
    const { pairBoardDevice } = await data<{ pairBoardDevice: { secret: string } }>(
      'mutation ($code: String!) { pairBoardDevice(code: $code) { secret } }',
      { code: createBoardDevice.code },
      {},
    );
    const { createDisplay } = await data<{ createDisplay: { url: string } }>(
      'mutation ($i: CreateDisplayInput!) { createDisplay(input: $i) { url } }',
      { i: { branchId, name: 'Wall', language: 'en' } },
      bearer(owner.token),
    );
    const display = /dsp_[A-Za-z0-9_-]+/.exec(createDisplay.url)![0];
    expect((await errorOf(range(), bearer(staff.token)))?.code).toBe('FORBIDDEN');
    expect((await errorOf(range(), bearer(stranger.token)))?.code).toBe('NOT_FOUND');
    for (const credential of [bearer(key), bearer(pairBoardDevice.secret), bearer(display), {}]) {
      expect((await errorOf(range(), credential))?.code).toBe('UNAUTHENTICATED');
    }
    expect((await errorOf({ ...range(), branchId: 'nope' }, bearer(owner.token)))?.code).toBe('NOT_FOUND');
    expect((await errorOf({ ...range(), branchId: '999999' }, bearer(owner.token)))?.code).toBe('NOT_FOUND');
  });

  it('names `to` for a range backwards or longer than 366 days', async () => {
    const now = Date.now();
    const backwards = await errorOf(
      { branchId, from: new Date(now).toISOString(), to: new Date(now - 1000).toISOString() },
      bearer(owner.token),
    );
    expect(backwards).toMatchObject({ code: 'BAD_USER_INPUT', errors: { to: ['to must be after from.'] } });
    const long = await errorOf(
      { branchId, from: new Date(now - 367 * 86_400_000).toISOString(), to: new Date(now).toISOString() },
      bearer(owner.token),
    );
    expect(long).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: { to: [expect.stringMatching(/366 days/)] },
    });
  });

  it('opens a CSV with a byte-order mark, the Ticket resource’s columns, and each ticket as REST reads it', async () => {
    const at = { ...bearer(owner.token), 'x-branch-id': branchId };
    const tickets = [
      { customerName: 'حسين علي', note: 'بدون بصل، مع صلصة' },
      { customerName: 'Omar, Jr.', note: 'The "big" one\nsecond line' },
      { customerName: '=HYPERLINK("http://evil.example","x")', note: '+964 770 000 0000' },
      { customerName: null, note: '@SUM(A1:A2)', externalId: 'POS-1' },
    ];
    for (const input of tickets) {
      await data(
        'mutation ($i: CreateTicketInput!) { createTicket(input: $i) { ticket { id } } }',
        { i: input },
        at,
      );
    }
    const first = await data<{ tickets: { items: { id: string }[] } }>(
      'query { tickets(perPage: 10) { items { id } } }',
      {},
      at,
    );
    await data(
      'mutation ($id: ID) { markTicketReady(id: $id) { status } }',
      { id: first.tickets.items[0]!.id },
      at,
    );

    const { exportTicketsCsv } = await data<{ exportTicketsCsv: { url: string } }>(
      EXPORT,
      range(),
      bearer(manager.token),
    );
    const answer = await fetch(local(exportTicketsCsv.url));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).toMatch(
      /^attachment; filename="tickets-\d+-\d{8}T\d{6}Z-\d{8}T\d{6}Z\.csv"$/,
    );
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const bytes = Buffer.from(await answer.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = parseCsv(text.slice(1));
    expect(header).toEqual([...TICKET_CSV_COLUMNS]);

    // The same tickets as the REST document reads them, oldest first, each value as its cell.
    const rest = await fetch(`${platform.restUrl}/tickets?per_page=100`, { headers: bearer(key) });
    const listed = (
      (await rest.json()) as { data: Record<string, string | number | boolean | null>[] }
    ).data.reverse();
    expect(rows).toHaveLength(tickets.length);
    const guarded = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
    expect(rows).toEqual(
      listed.map((resource) =>
        TICKET_CSV_COLUMNS.map((column) => {
          const value = resource[column];
          return value === null ? '' : typeof value === 'string' ? guarded(value) : String(value);
        }),
      ),
    );
    const byName = (name: string) =>
      rows.find((row) => row[TICKET_CSV_COLUMNS.indexOf('customer_name')] === name);
    expect(byName('حسين علي')?.[TICKET_CSV_COLUMNS.indexOf('note')]).toBe('بدون بصل، مع صلصة');
    expect(byName('Omar, Jr.')?.[TICKET_CSV_COLUMNS.indexOf('note')]).toBe('The "big" one\nsecond line');
    expect(text).toContain('"Omar, Jr.","The ""big"" one\nsecond line"');
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")",'+964 770 000 0000`);

    // Texts in the language the link was asked in.
    const { exportTicketsCsv: arabic } = await data<{ exportTicketsCsv: { url: string } }>(EXPORT, range(), {
      ...bearer(owner.token),
      'accept-language': 'ar',
    });
    const arabicRows = parseCsv((await (await fetch(local(arabic.url))).text()).slice(1)).slice(1);
    expect(new Set(arabicRows.map((row) => row[TICKET_CSV_COLUMNS.indexOf('status_text')]))).toEqual(
      new Set(['قيد الانتظار', 'جاهز']),
    );

    // Each download is in the venue's audit log, as the person's who asked for the link.
    const audit = await database.query(
      `select actor_type, actor_id::text, target, details from tickets.audit_events
        where venue_id = $1 and action = 'tickets.exported' order by id`,
      [venueId],
    );
    expect(audit.slice(0, 2)).toEqual([
      {
        actor_type: 'user',
        actor_id: String(manager.id),
        target: `branch:${branchId}`,
        details: { from: expect.any(String) as unknown, to: expect.any(String) as unknown },
      },
      expect.objectContaining({ actor_id: String(owner.id) }) as unknown,
    ]);
  });

  it('refuses with 403 a link changed, signed by anyone else, expired, or whose person lost the role', async () => {
    const { exportTicketsCsv } = await data<{ exportTicketsCsv: { url: string } }>(
      EXPORT,
      range(),
      bearer(manager.token),
    );
    const url = new URL(local(exportTicketsCsv.url));
    const status = async (changed: URL) => {
      const answer = await fetch(changed);
      return { status: answer.status, body: (await answer.json()) as { message: string } };
    };
    const signature = url.searchParams.get('signature')!;
    const forged = new URL(url);
    forged.searchParams.set('signature', `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`);
    expect(await status(forged)).toEqual({
      status: 403,
      body: { message: 'This download link is not valid.' },
    });
    const otherBranch = new URL(url);
    otherBranch.searchParams.set('branch', String(Number(branchId) + 1));
    expect((await status(otherBranch)).status).toBe(403);
    const wider = new URL(url);
    wider.searchParams.set('from', '2020-01-01T00:00:00.000Z');
    expect((await status(wider)).status).toBe(403);
    const bare = new URL(url);
    bare.search = '';
    expect((await status(bare)).status).toBe(403);

    // Signed by the platform, but its minute is over.
    const link: TicketExportLink = {
      branchId: Number(url.searchParams.get('branch')),
      from: url.searchParams.get('from')!,
      to: url.searchParams.get('to')!,
      userId: Number(url.searchParams.get('user')),
      language: 'en',
      expires: Math.floor(Date.now() / 1000) - 1,
    };
    const expired = new URL(url);
    expired.searchParams.set('expires', String(link.expires));
    expired.searchParams.set('signature', signTicketExportLink(platform.config.internalSecret, link));
    expect(await status(expired)).toEqual({
      status: 403,
      body: { message: 'This download link has expired; ask for a new one.' },
    });
    const arabic = await fetch(expired, { headers: { 'accept-language': 'ar' } });
    expect(((await arabic.json()) as { message: string }).message).toBe(
      'انتهت صلاحية رابط التنزيل هذا؛ اطلب رابطاً جديداً.',
    );

    // The manager is staff now: the link they were given no longer opens.
    expect((await fetch(url)).status).toBe(200);
    await database.query(
      `update tickets.venue_members set role = 'STAFF' where venue_id = $1 and user_id = $2`,
      [venueId, manager.id],
    );
    expect((await status(url)).status).toBe(403);
    await database.query(
      `update tickets.venue_members set role = 'MANAGER' where venue_id = $1 and user_id = $2`,
      [venueId, manager.id],
    );
  });

  it('answers the tickets subgraph’s stream only to the platform', async () => {
    const tickets = new URL(platform.config.subgraphUrls.tickets);
    const direct = await fetch(`${tickets.origin}/internal/ticket-exports.csv`);
    expect(direct.status).toBe(401);
  });
});
