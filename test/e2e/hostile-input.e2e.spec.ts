import { once } from 'node:events';
import WebSocket from 'ws';
import { HEADER_LIMITS } from '../../common/http-service';
import { internalCredentialHeaders } from '../../common/internal-credential';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  type CvAccount,
  cvCaller,
  newBranchKey,
  newCvAccount,
  newTicketBranch,
  type Platform,
  platformTemplateId,
  startPlatform,
  type TicketBranch,
} from '../support/platform';

interface Reply {
  status: number;
  body: { message?: string; errors?: Record<string, string[]> } & Record<string, unknown>;
}

interface GraphReply {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: {
      message: string;
      extensions?: { code?: string; errors?: Record<string, string[]>; messages?: unknown };
    }[];
  };
}

const NUL_MESSAGE = (field: string) => `The ${field} field must not contain NUL characters.`;
const UTF8_MESSAGE = (field: string) => `The ${field} field must be valid UTF-8 text.`;

describe('text no column can store, ids no record can have, and paths no route takes', () => {
  let database: TestDatabase;
  let platform: Platform;
  let branch: TicketBranch;
  let account: CvAccount;
  let cvId: string;
  let call: ReturnType<typeof cvCaller>;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    branch = await newTicketBranch(platform.config);
    account = await newCvAccount(platform.config, { plan: 'pro' });
    call = cvCaller(platform);
    const created = await call<{ id: string }>('POST', '/cvs', account.key, {
      title: 'CV',
      locale: 'en',
      template_id: await platformTemplateId(database, 'classic'),
    });
    cvId = created.body.data!.id;
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  /** The raw request line matters here (`%00`, `%FF`), so paths are sent exactly as written. */
  async function ticketCall(method: string, path: string, body?: string, key = branch.key): Promise<Reply> {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, body: (await response.json()) as Reply['body'] };
  }

  async function graph(
    query: string,
    variables: Record<string, unknown> = {},
    rawBody?: string,
    extraHeaders: Record<string, string> = {},
  ): Promise<GraphReply> {
    const response = await fetch(platform.gatewayUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${branch.key}`,
        'x-api-key': account.key,
        ...extraHeaders,
      },
      body: rawBody ?? JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as GraphReply['body'] };
  }

  const rows = async (table: string) =>
    Number((await database.query(`select count(*) as n from ${table}`))[0]!.n);

  describe('the ticket document', () => {
    it('refuses a NUL in a body field with 422 naming it, and writes no ticket', async () => {
      const before = await rows('tickets.tickets');
      const reply = await ticketCall('POST', '/tickets', '{"customer_name": "\\u0000"}');
      expect(reply).toEqual({
        status: 422,
        body: {
          message: NUL_MESSAGE('customer name'),
          errors: { customer_name: [NUL_MESSAGE('customer name')] },
        },
      });
      expect(await rows('tickets.tickets')).toBe(before);
    });

    it('refuses a lone surrogate, which would otherwise be stored as U+FFFD', async () => {
      const before = await rows('tickets.tickets');
      const reply = await ticketCall('POST', '/tickets', '{"note": "ok", "number": "7\\ud800"}');
      expect(reply.status).toBe(422);
      expect(reply.body.errors).toEqual({ number: [UTF8_MESSAGE('number')] });
      expect(await rows('tickets.tickets')).toBe(before);
    });

    it('judges the key before the text: a bad key is 401 and a read-only key 403', async () => {
      const unknown = await ticketCall(
        'POST',
        '/tickets',
        '{"note": "\\u0000"}',
        'tk_nobodyHasThisKey000000000000000',
      );
      expect(unknown.status).toBe(401);
      expect(unknown.body.message).toBe('Unauthenticated.');
      const readOnly = await newBranchKey(platform.config, branch.branchId, 'tickets:read');
      const unscoped = await ticketCall('POST', '/tickets/by-external/x%00/ready', undefined, readOnly.key);
      expect(unscoped).toEqual({
        status: 403,
        body: { message: 'This API key lacks the tickets:write scope.' },
      });
    });

    it('names the path parameter and the query parameter that carry a NUL or bytes that are not UTF-8', async () => {
      expect(await ticketCall('GET', '/tickets/by-external/x%00y')).toEqual({
        status: 422,
        body: {
          message: NUL_MESSAGE('external id'),
          errors: { external_id: [NUL_MESSAGE('external id')] },
        },
      });
      const surrogate = await ticketCall('POST', '/tickets/by-external/x%ED%A0%80y/ready');
      expect(surrogate.status).toBe(422);
      expect(surrogate.body.errors).toEqual({ external_id: [UTF8_MESSAGE('external id')] });
      const search = await ticketCall('GET', '/tickets?search=a%00b&status=waiting');
      expect(search.status).toBe(422);
      expect(search.body.errors).toEqual({ search: [NUL_MESSAGE('search')] });
      const page = await ticketCall('GET', '/tickets?page=99999999999');
      expect(page.body.errors).toEqual({ page: ['The page field must not be greater than 2147483647.'] });
      const malformed = await ticketCall('GET', '/tickets?external_id=%FF');
      expect(malformed.body.errors).toEqual({ external_id: [UTF8_MESSAGE('external id')] });
    });

    it('answers an id that cannot be a ticket’s as an unknown one: 404', async () => {
      for (const id of [
        '%FF',
        '%ED%A0%80',
        '1%00',
        '9223372036854775808',
        '99999999999999999999',
        '1e3',
        '-1',
      ]) {
        expect(await ticketCall('GET', `/tickets/${id}`)).toEqual({
          status: 404,
          body: { message: 'Ticket not found.' },
        });
        expect((await ticketCall('POST', `/tickets/${id}/ready`)).status).toBe(404);
      }
    });

    it('answers an external id longer than any stored one as unknown, not as a field error', async () => {
      expect(await ticketCall('GET', `/tickets/by-external/${'x'.repeat(101)}`)).toEqual({
        status: 404,
        body: { message: 'Ticket not found.' },
      });
    });

    it('names the body itself when it is an array where an object belongs, and a field given 1e999', async () => {
      expect(await ticketCall('POST', '/tickets', '[{"note": "x"}]')).toEqual({
        status: 422,
        body: {
          message: 'The body field must be an object.',
          errors: { body: ['The body field must be an object.'] },
        },
      });
      const huge = await ticketCall('POST', '/tickets', '{"number": 1e999, "note": ["x"]}');
      expect(huge.status).toBe(422);
      expect(huge.body.errors).toEqual({
        number: ['The number field must be a string.'],
        note: ['The note field must be a string.'],
      });
    });

    it('refuses a body nested past 32 levels under its field, however deep', async () => {
      const deep = `{"note": ${'{"a": '.repeat(50_000)}1${'}'.repeat(50_000)}}`;
      const reply = await ticketCall('POST', '/tickets', deep);
      expect(reply).toEqual({
        status: 422,
        body: {
          message: 'The note field must not be nested more than 32 levels deep.',
          errors: { note: ['The note field must not be nested more than 32 levels deep.'] },
        },
      });
    });

    it('keeps __proto__ as a field name', async () => {
      const reply = await ticketCall('POST', '/tickets', '{"__proto__": "\\u0000"}');
      expect(reply.status).toBe(422);
      const errors = reply.body.errors!;
      expect(Object.keys(errors)).toEqual(['__proto__']);
      expect(Object.getOwnPropertyDescriptor(errors, '__proto__')?.value).toEqual([
        // Named as Laravel names every field: its underscores read as spaces.
        NUL_MESSAGE('__proto__'.replace(/_/g, ' ')),
      ]);
    });
  });

  describe('the CV document', () => {
    it('names a section item’s field, in Arabic when asked, and leaves the CV as it was', async () => {
      const [before] = await database.query('select updated_at from cv.cvs where id = $1', [cvId]);
      const reply = await call('PUT', `/cvs/${cvId}`, account.key, {
        sections: { experience: [{ position: 'Engineer', company: 'Nida\u0000' }] },
      });
      expect(reply.status).toBe(422);
      expect(reply.body.errors).toEqual({
        'sections.experience.0.company': [NUL_MESSAGE('sections.experience.0.company')],
      });
      const arabic = await call(
        'PUT',
        `/cvs/${cvId}`,
        account.key,
        { title: '\ud800' },
        { 'accept-language': 'ar' },
      );
      expect(arabic.body).toEqual({
        message: 'يجب أن يكون حقل title نصاً صالحاً بترميز UTF-8.',
        errors: { title: ['يجب أن يكون حقل title نصاً صالحاً بترميز UTF-8.'] },
      });
      const [after] = await database.query('select updated_at from cv.cvs where id = $1', [cvId]);
      expect(after).toEqual(before);
    });

    it('judges the CV before the text: an unknown one is 404 whatever the body', async () => {
      const reply = await call('PUT', '/cvs/00000000-0000-4000-8000-000000000000', account.key, {
        title: '\u0000',
      });
      expect(reply).toMatchObject({ status: 404, body: { message: 'CV not found.', errors: {} } });
    });

    it('names the field of an imported resume where the client put it, and creates no CV', async () => {
      const before = await rows('cv.cvs');
      const bare = await call('POST', '/cvs/import/json-resume', account.key, {
        basics: { name: 'A\u0000' },
      });
      expect(bare.status).toBe(422);
      expect(bare.body.errors).toEqual({ 'basics.name': [NUL_MESSAGE('basics.name')] });
      const wrapped = await call('POST', '/cvs/import/json-resume', account.key, {
        resume: { basics: { name: 'A' }, work: [{ name: '\udc00' }] },
      });
      expect(wrapped.body.errors).toEqual({ 'resume.work.0.name': [UTF8_MESSAGE('resume.work.0.name')] });
      expect(await rows('cv.cvs')).toBe(before);
    });

    it('answers a UUID or template id that cannot be one as not found, in the document’s shape', async () => {
      for (const path of [`/cvs/%FF`, `/cvs/%ED%A0%80/pdf`, `/cvs/${cvId}%00`]) {
        expect(await call('GET', path, account.key)).toMatchObject({
          status: 404,
          body: { message: 'CV not found.', errors: {} },
        });
      }
      for (const id of ['%FF', '1%00', '99999999999999999999']) {
        expect(
          await call('GET', `/templates/${id}`, account.key, undefined, { 'accept-language': 'ar' }),
        ).toMatchObject({
          status: 404,
          body: { message: 'القالب غير موجود.', errors: {} },
        });
      }
    });

    it('answers a path under the document that no route takes in its shape', async () => {
      expect(await call('GET', '/cvs//pdf', account.key)).toMatchObject({
        status: 404,
        body: { message: 'The route api/v1/cvs//pdf could not be found.', errors: {} },
      });
      expect(
        (await call('GET', '/cvs//pdf', account.key, undefined, { 'accept-language': 'ar' })).body,
      ).toEqual({
        message: 'تعذّر العثور على المسار api/v1/cvs//pdf.',
        errors: {},
      });
    });
  });

  it('answers a public path that cannot be decoded as an unknown route, not a server error', async () => {
    const origin = platform.restUrl.replace(/\/api\/v1$/, '');
    for (const path of ['/t/%FF', '/t/%FF/qr.png', '/cv/%E0%A4', '/templates/%ED%A0%80/preview']) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: `The route ${path.slice(1)} could not be found.` });
    }
  });

  describe('the graph', () => {
    const CREATE = 'mutation ($input: CreateTicketInput!) { createTicket(input: $input) { replayed } }';

    it('refuses text with a NUL in variables and in literals, keyed by the argument’s path', async () => {
      const before = await rows('tickets.tickets');
      const variable = await graph(CREATE, { input: { customerName: 'Ali\u0000' } });
      expect(variable.status).toBe(400);
      expect(variable.body.errors).toEqual([
        {
          message: NUL_MESSAGE('input.customerName'),
          extensions: {
            code: 'BAD_USER_INPUT',
            errors: { 'input.customerName': [NUL_MESSAGE('input.customerName')] },
          },
        },
      ]);
      const literal = await graph('{ ticketByExternalId(externalId: "a\\u0000") { id } }');
      expect(literal.body.errors?.[0]?.extensions?.errors).toEqual({
        externalId: [NUL_MESSAGE('externalId')],
      });
      const surrogate = await graph(
        'mutation ($p: String!) { optInTicketSms(token: "x", phone: $p) { number } }',
        {
          p: '\udfff',
        },
      );
      expect(surrogate.body.errors?.[0]?.extensions?.errors).toEqual({ phone: [UTF8_MESSAGE('phone')] });
      expect(await rows('tickets.tickets')).toBe(before);
    });

    it('refuses a custom scalar its subgraph would refuse, instead of passing a 400 on as a server error', async () => {
      const date = await graph('query ($f: TicketFilter) { tickets(filter: $f) { total } }', {
        f: { from: 'yesterday' },
      });
      expect(date.body.errors?.[0]?.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        errors: { 'filter.from': ['The filter.from field must be a valid date.'] },
      });
      const resume = await graph(
        'mutation ($i: ImportJsonResumeInput!) { importJsonResume(input: $i) { id } }',
        {
          i: { resume: [[{}]] },
        },
      );
      expect(resume.body.errors?.[0]?.extensions?.errors).toEqual({
        'input.resume': ['The input.resume field must be an object.'],
      });
      const nested = await graph(
        'mutation ($i: ImportJsonResumeInput!) { importJsonResume(input: $i) { id } }',
        {
          i: { resume: { basics: { name: 'A\u0000' } } },
        },
      );
      expect(nested.body.errors?.[0]?.extensions?.errors).toEqual({
        'input.resume.basics.name': [NUL_MESSAGE('input.resume.basics.name')],
      });
    });

    it('refuses a date outside years 1 to 9999 at every door, naming it, instead of the database’s refusal', async () => {
      const list = 'query ($f: TicketFilter) { tickets(filter: $f) { total } }';
      for (const to of ['0000-01-01T00:00:00Z', '+010000-01-01T00:00:00Z']) {
        const answer = await graph(list, { f: { to } });
        expect({ to, extensions: answer.body.errors?.[0]?.extensions }).toEqual({
          to,
          extensions: {
            code: 'BAD_USER_INPUT',
            errors: { 'filter.to': ['The filter.to field must be a valid date.'] },
          },
        });
      }
      // The subgraph, reached by the platform's own processes, refuses it too rather than ask Postgres.
      const direct = await fetch(platform.config.subgraphUrls.tickets, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${branch.key}`,
          ...internalCredentialHeaders(platform.config.internalSecret),
        },
        body: JSON.stringify({ query: list, variables: { f: { from: '0000-06-01T00:00:00Z' } } }),
      });
      const directBody = (await direct.json()) as GraphReply['body'];
      expect(directBody.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        errors: { from: ['The from field must be a valid date.'] },
      });
      expect(await ticketCall('GET', '/tickets?to=0000-01-01')).toEqual({
        status: 422,
        body: {
          message: 'The to field must be a valid date.',
          errors: { to: ['The to field must be a valid date.'] },
        },
      });
      const within = await graph(list, { f: { from: '0001-01-01T00:00:00Z', to: '9999-12-31T23:59:59Z' } });
      expect(within.body.errors).toBeUndefined();
    });

    it('gives the ids of its sentences to a caller that asks, from the gateway and from a subgraph', async () => {
      const ask = { 'x-message-ids': '1' };
      const guarded = await graph(CREATE, { input: { customerName: 'Ali\u0000' } }, undefined, ask);
      expect(guarded.body.errors?.[0]?.extensions?.messages).toEqual({
        message: [{ id: 'field.nul', params: { field: 'input.customerName' } }],
        errors: { 'input.customerName': [{ id: 'field.nul', params: { field: 'input.customerName' } }] },
      });
      const tooLong = { input: { note: 'x'.repeat(300) } };
      const refused = await graph(CREATE, tooLong, undefined, ask);
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        errors: { note: ['The note field must not be greater than 255 characters.'] },
        messages: { errors: { note: [{ id: 'field.max_characters', params: { field: 'note', max: 255 } }] } },
      });
      // Without the header the answer is as it always was.
      const plain = await graph(CREATE, tooLong);
      expect(plain.body.errors?.[0]?.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        errors: { note: ['The note field must not be greater than 255 characters.'] },
        serviceName: 'tickets',
      });
    });

    it('refuses a JSON argument nested past 32 levels, however deep', async () => {
      const deep = `${'{"a": '.repeat(50_000)}1${'}'.repeat(50_000)}`;
      const reply = await graph(
        '',
        {},
        `{"query": "mutation ($i: ImportJsonResumeInput!) { importJsonResume(input: $i) { id } }", "variables": {"i": {"resume": ${deep}}}}`,
      );
      expect(reply.status).toBe(400);
      expect(reply.body.errors?.[0]?.extensions?.errors).toEqual({
        'input.resume': ['The input.resume field must not be nested more than 32 levels deep.'],
      });
    });

    it('refuses arguments larger than a subgraph takes, naming the largest', async () => {
      const reply = await graph(CREATE, { input: { customerName: 'x'.repeat(1_100_000) } });
      expect(reply.status).toBe(400);
      expect(reply.body.errors?.[0]?.extensions?.errors).toEqual({
        input: [
          'The input field is too large: all arguments together must not be greater than 1000 kilobytes.',
        ],
      });
    });

    it('answers an id that cannot be a record’s with NOT_FOUND, in the subgraph’s words', async () => {
      for (const [query, message] of [
        ['{ ticket(id: "99999999999999999999") { id } }', 'Ticket not found.'],
        ['mutation { markTicketReady(id: "1\\u0000") { id } }', 'Ticket not found.'],
        ['{ cv(id: "\\u0000") { id } }', 'CV not found.'],
        ['{ template(id: "1e3") { id } }', 'Template not found.'],
        ['{ templatePreviewHtml(id: "9007199254740993") }', 'Template not found.'],
      ] as const) {
        const reply = await graph(query);
        expect(reply.body.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([
          [message, 'NOT_FOUND'],
        ]);
      }
    });
  });

  describe('request bodies refused as a whole', () => {
    const UNREADABLE =
      'The request body could not be read: it does not match its Content-Encoding or Content-Length.';
    const send = (url: string, headers: Record<string, string>, body: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

    it('answers a body that is not what its Content-Encoding says with 400 in each document’s shape', async () => {
      const before = await rows('tickets.tickets');
      const gzip = { 'content-encoding': 'gzip' };
      const ticket = await send(
        `${platform.restUrl}/tickets`,
        { ...gzip, authorization: `Bearer ${branch.key}` },
        '{}',
      );
      expect(ticket.status).toBe(400);
      expect(await ticket.json()).toEqual({ message: UNREADABLE });
      const cv = await send(
        `${platform.restUrl}/cvs`,
        { 'content-encoding': 'br', 'x-api-key': account.key, 'accept-language': 'ar' },
        '{}',
      );
      expect(cv.status).toBe(400);
      expect(await cv.json()).toEqual({
        message: 'تعذّرت قراءة جسم الطلب: لا يطابق ترميزَ المحتوى أو طولَه.',
        errors: {},
      });
      expect(await rows('tickets.tickets')).toBe(before);
    });

    it('answers the gateway’s refused bodies and persisted-query mistakes as GraphQL errors, never a server error', async () => {
      const refusal = async (response: Promise<Response>) => {
        const answered = await response;
        return { status: answered.status, body: (await answered.json()) as unknown };
      };
      const badRequest = (message: string) => ({
        errors: [{ message, extensions: { code: 'BAD_REQUEST' } }],
      });
      expect(await refusal(send(platform.gatewayUrl, {}, '{"query":'))).toEqual({
        status: 400,
        body: badRequest('The request body is not valid JSON.'),
      });
      expect(await refusal(send(platform.gatewayUrl, { 'content-encoding': 'gzip' }, '{}'))).toEqual({
        status: 400,
        body: badRequest(UNREADABLE),
      });
      expect(
        await refusal(
          send(platform.gatewayUrl, { 'content-type': 'application/json; charset=latin1' }, '{}'),
        ),
      ).toEqual({
        status: 415,
        body: badRequest('The request body encoding is not supported.'),
      });
      const huge = JSON.stringify({ query: '{ __typename }', variables: { x: 'a'.repeat(9 * 1024 * 1024) } });
      expect(await refusal(send(platform.gatewayUrl, {}, huge))).toEqual({
        status: 413,
        body: badRequest('The request body is larger than 8 MB.'),
      });
      const persisted = (persistedQuery: unknown, query?: string) =>
        refusal(send(platform.gatewayUrl, {}, JSON.stringify({ query, extensions: { persistedQuery } })));
      expect(await persisted({ version: 1, sha256Hash: 'abc' }, '{ __typename }')).toEqual({
        status: 400,
        body: badRequest('provided sha does not match query'),
      });
      expect(await persisted({ version: 2, sha256Hash: 'abc' })).toEqual({
        status: 400,
        body: badRequest('Unsupported persisted query version'),
      });
      expect(await persisted('not an object', '{ __typename }')).toEqual({
        status: 400,
        body: badRequest('Unsupported persisted query version'),
      });
    });
  });

  describe('headers and socket parameters', () => {
    /** Node's own header limit, which the gateway keeps for its clients. */
    const GATEWAY_HEADER_BYTES = 16 * 1024;
    // Below a limit by more than the other headers fetch sends (host, accept, user-agent…).
    const under = (limit: number) => limit - 1024;

    const restWith = (headers: Record<string, string>) =>
      fetch(`${platform.restUrl}/tickets`, { headers: { accept: 'application/json', ...headers } });
    const gatewayWith = (headers: Record<string, string>) =>
      fetch(platform.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ tickets { total } }' }),
      });
    const longKey = (length: number) => `Bearer tk_${'a'.repeat(length)}`;

    it('answers a header up to each door’s limit as an unknown key, and past it 431, never a server error', async () => {
      // What a door accepts is passed on with the platform's own headers, and must fit the next hop.
      const rest = await restWith({ authorization: longKey(under(HEADER_LIMITS.restAdapter)) });
      expect(rest.status).toBe(401);
      expect(await rest.json()).toEqual({ message: 'Unauthenticated.' });
      const split = await restWith({
        authorization: longKey(under(HEADER_LIMITS.restAdapter) / 2),
        'accept-language': `en;q=0.9, ${'x'.repeat(under(HEADER_LIMITS.restAdapter) / 2)}`,
      });
      expect(split.status).toBe(401);
      // Just under the gateway's limit: the adapter refuses it itself rather than passing on more.
      const justUnder = longKey(GATEWAY_HEADER_BYTES - 300);
      expect((await restWith({ authorization: justUnder })).status).toBe(431);

      const graphAnswer = await gatewayWith({ authorization: justUnder });
      expect(graphAnswer.status).toBe(200);
      const body = (await graphAnswer.json()) as GraphReply['body'];
      expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect((await gatewayWith({ authorization: longKey(GATEWAY_HEADER_BYTES) })).status).toBe(431);
    });

    /** How the gateway closes a socket whose connection_init carries these parameters. */
    async function closeOf(payload: unknown): Promise<{ code: number; reason: string }> {
      const socket = new WebSocket(platform.gatewayUrl.replace(/^http/, 'ws'), 'graphql-transport-ws');
      await once(socket, 'open');
      socket.send(JSON.stringify({ type: 'connection_init', payload }));
      const [code, reason] = (await once(socket, 'close')) as [number, Buffer];
      return { code, reason: reason.toString() };
    }

    it('refuses connection_init parameters no header can carry with 4400 naming them', async () => {
      expect(await closeOf({ authorization: `Bearer ${branch.key}`, 'x-branch-id': '1\u0000' })).toEqual({
        code: 4400,
        reason: 'Bad connection_init: x-branch-id holds a character no HTTP header can carry.',
      });
      expect(await closeOf({ Authorization: 'Bearer \ud800' })).toEqual({
        code: 4400,
        reason: 'Bad connection_init: authorization holds a character no HTTP header can carry.',
      });
      expect(await closeOf({ 'x-api-key': 'cv_\r\nx-injected: 1' })).toEqual({
        code: 4400,
        reason: 'Bad connection_init: x-api-key holds a character no HTTP header can carry.',
      });
      expect(await closeOf({ authorization: { key: branch.key } })).toEqual({
        code: 4400,
        reason: 'Bad connection_init: authorization must be a string.',
      });
      expect(await closeOf({ authorization: longKey(5000) })).toEqual({
        code: 4400,
        reason: 'Bad connection_init: authorization is longer than 2048 characters.',
      });
      // A well-formed key the graph does not know is still only forbidden.
      expect(await closeOf({ authorization: longKey(2000) })).toEqual({ code: 4403, reason: 'Forbidden' });
    });

    it('answers a subscription’s missing or mistyped variables as BAD_USER_INPUT and keeps the socket', async () => {
      const socket = new WebSocket(platform.gatewayUrl.replace(/^http/, 'ws'), 'graphql-transport-ws');
      const messages: { id?: string; type: string; payload?: unknown }[] = [];
      socket.on('message', (data: Buffer) =>
        messages.push(JSON.parse(data.toString()) as (typeof messages)[number]),
      );
      await once(socket, 'open');
      socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
      const answerTo = async (id: string | undefined, type?: string) => {
        for (let waited = 0; waited < 5_000; waited += 20) {
          const found = messages.find(
            (message) =>
              message.id === id &&
              message.type !== 'complete' &&
              (type === undefined || message.type === type),
          );
          if (found !== undefined) return found;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error(`no answer to ${id}`);
      };
      await answerTo(undefined, 'connection_ack');
      const subscription = 'subscription ($t: String!) { ticketUpdated(token: $t) { number } }';
      const subscribe = (id: string, variables: Record<string, unknown>, query = subscription) =>
        socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
      subscribe('missing', {});
      subscribe('mistyped', { t: 5 });
      for (const id of ['missing', 'mistyped']) {
        const answer = (await answerTo(id)) as {
          type: string;
          payload: { extensions?: { code?: string } }[];
        };
        expect(answer.type).toBe('error');
        expect(answer.payload[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      }
      subscribe('after', {}, '{ __typename }');
      expect(await answerTo('after')).toMatchObject({
        type: 'next',
        payload: { data: { __typename: 'Query' } },
      });
      expect(socket.readyState).toBe(WebSocket.OPEN);
      socket.close();
    });
  });
});
