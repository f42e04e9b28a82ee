import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { redactAttribute, redactSerializedError, redactSql, redactUrl, tokenFingerprint } from './redaction';

const TICKET = 'Zq3v9Xk2LmNp4Rs7Tu8Vw1Yx5Ab6Cd0E';
const DISPLAY = 'dsp_q2W3e4R5t6Y7u8I9o0P1a2S3d4F5g6H7j8K9l0Z1x2C';
const SHARE = 'aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW';
const SIGNATURE = 'k1J2h3G4f5D6s7A8q9W0e1R2t3Y4u5I6o7P8a9S0d1F';
const fingerprint = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 8);

describe('redactUrl: capability tokens and secret query values never leave as they are', () => {
  it('replaces the token of a ticket page, a display and a share page by its fingerprint', () => {
    expect(redactUrl(`/t/${TICKET}`)).toBe(`/t/{token:${fingerprint(TICKET)}}`);
    expect(redactUrl(`/t/${TICKET}/qr.png`)).toBe(`/t/{token:${fingerprint(TICKET)}}/qr.png`);
    expect(redactUrl(`/display/${DISPLAY}`)).toBe(`/display/{token:${fingerprint(DISPLAY)}}`);
    expect(redactUrl(`/cv/${SHARE}?lang=en`)).toBe(`/cv/{token:${fingerprint(SHARE)}}?lang=en`);
    // Express matches routes whatever the case, so a capitalised prefix opens the same page.
    expect(redactUrl(`/T/${TICKET}`)).toBe(`/T/{token:${fingerprint(TICKET)}}`);
    expect(tokenFingerprint(TICKET)).toBe(fingerprint(TICKET));
  });

  it('finds them inside full URLs and free text, such as an error message', () => {
    expect(redactUrl(`GET https://nida.example.com/t/${TICKET} failed: socket hang up`)).toBe(
      `GET https://nida.example.com/t/{token:${fingerprint(TICKET)}} failed: socket hang up`,
    );
    expect(redactUrl(`"/cv/${SHARE}"`)).toBe(`"/cv/{token:${fingerprint(SHARE)}}"`);
  });

  it('hides a signed link’s signature (and other secret parameters) and keeps the rest of the query', () => {
    const query = `branch=4&from=2025-01-01T00%3A00%3A00.000Z&user=9&lang=ar&expires=1700000000&signature=${SIGNATURE}`;
    expect(redactUrl(query)).toBe(query.replace(SIGNATURE, '[redacted]'));
    expect(redactUrl(`/exports/tickets.csv?${query}`)).toBe(
      `/exports/tickets.csv?${query.replace(SIGNATURE, '[redacted]')}`,
    );
    expect(redactUrl(`/api/v1/cvs/x/pdf?Signature=${SIGNATURE}&account=3`)).toBe(
      '/api/v1/cvs/x/pdf?Signature=[redacted]&account=3',
    );
    const get = new URLSearchParams({
      query: '{ ticketByToken(token: "x") { number } }',
      variables: '{"t":"y"}',
    });
    expect(redactUrl(`/graphql?${get}`)).toBe('/graphql?query=[redacted]&variables=[redacted]');
  });

  it('leaves route templates, the page’s assets and other routes as they are, and is idempotent', () => {
    for (const text of [
      '/t/:token',
      'GET /t/:token/qr.png',
      '/t/{token}',
      '/t/sw.js',
      '/t/assets/page.3f2a1b.js',
      '/b/assets/board.9c8d.css',
      '/board/pair',
      '/api/v1/tickets/42',
      '/api/v1/cvs/5f0c/pdf',
      '/templates/3/preview?lang=en',
      'page=2&per_page=50',
    ]) {
      expect(redactUrl(text)).toBe(text);
    }
    const once = redactUrl(`/t/${TICKET}/sms?signature=${SIGNATURE}`);
    expect(redactUrl(once)).toBe(once);
  });
});

describe('redactSql: a statement’s literals, as MikroORM inlines them, are hidden', () => {
  it('masks every string literal, quotes doubled inside included', () => {
    expect(redactSql(`select * from tickets.tickets where token = '${TICKET}'`)).toBe(
      "select * from tickets.tickets where token = '?'",
    );
    expect(redactSql("insert into t (a, b) values ('it''s', E'back\\\\slash') returning id")).toBe(
      "insert into t (a, b) values ('?', E'?') returning id",
    );
    expect(redactSql(`Key (share_token)=(${SHARE}) already exists.`)).toBe(
      'Key (share_token)=(?) already exists.',
    );
  });

  it('applies to the statement attributes of a span only', () => {
    const statement = `select 1 from cv.cvs where share_token = '${SHARE}'`;
    expect(redactAttribute('db.query.text', statement)).toBe("select 1 from cv.cvs where share_token = '?'");
    expect(redactAttribute('db.statement', statement)).not.toContain(SHARE);
    expect(redactAttribute('graphql.source', "query { a(b: 'c') }")).toBe("query { a(b: 'c') }");
    expect(redactAttribute('url.path', `/display/${DISPLAY}`)).toBe(
      `/display/{token:${fingerprint(DISPLAY)}}`,
    );
  });
});

describe('redactSerializedError: what a logged error says', () => {
  it('hides URLs in any error, and the statement and key of a Postgres error', () => {
    expect(
      redactSerializedError({
        type: 'Error',
        message: `request to http://127.0.0.1:4001/internal/ticket-exports.csv?signature=${SIGNATURE} failed`,
        stack: `Error: … /t/${TICKET}\n    at x`,
        when: new Date(0),
      }),
    ).toEqual({
      type: 'Error',
      message: 'request to http://127.0.0.1:4001/internal/ticket-exports.csv?signature=[redacted] failed',
      stack: `Error: … /t/{token:${fingerprint(TICKET)}}\n    at x`,
      when: new Date(0),
    });
    const database = redactSerializedError({
      type: 'UniqueConstraintViolationException',
      message: `insert into tickets.tickets (token) values ('${TICKET}') - duplicate key value\n - detail: Key (token)=(${TICKET}) already exists.`,
      stack: `UniqueConstraintViolationException: insert into tickets.tickets (token) values ('${TICKET}')`,
      severity: 'ERROR',
      code: '23505',
      detail: `Key (token)=(${TICKET}) already exists.`,
    });
    expect(JSON.stringify(database)).not.toContain(TICKET);
    expect(database).toMatchObject({ code: '23505', detail: 'Key (token)=(?) already exists.' });
  });

  it('leaves the quotes of an error that is not a database’s', () => {
    const error = {
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'x')",
      stack: '',
    };
    expect(redactSerializedError(error)).toEqual(error);
  });
});

describe('the logger', () => {
  it('writes a logged error without the token its message quotes', () => {
    const lines: string[] = [];
    const logger = createLogger({
      service: 'probe',
      level: 'info',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    });
    logger.error({ err: new Error(`GET /t/${TICKET}?signature=${SIGNATURE} failed`) }, 'request failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(TICKET);
    expect(lines[0]).not.toContain(SIGNATURE);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      msg: 'request failed',
      err: { type: 'Error', message: `GET /t/{token:${fingerprint(TICKET)}}?signature=[redacted] failed` },
    });
  });
});
