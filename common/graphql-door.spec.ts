import type { IncomingMessage } from 'node:http';
import { admits, parseJsonBody } from './graphql-door';

const LIMIT = 8 * 1024 * 1024;

function head(method: string, url: string, headers: Record<string, string>): IncomingMessage {
  return { method, url, headers } as unknown as IncomingMessage;
}

describe('the front door of /graphql', () => {
  const json = { 'content-type': 'application/json', 'content-length': '20' };

  it('admits a plain JSON POST to /graphql with a declared length within the limit', () => {
    expect(admits(head('POST', '/graphql', json), LIMIT)).toBe(true);
    expect(
      admits(head('POST', '/graphql', { ...json, 'content-type': 'application/json; charset=utf-8' }), LIMIT),
    ).toBe(true);
    expect(admits(head('POST', '/graphql', { ...json, 'content-length': String(LIMIT) }), LIMIT)).toBe(true);
  });

  it.each([
    ['another method', head('GET', '/graphql', json)],
    ['a query string', head('POST', '/graphql?x=1', json)],
    ['a trailing slash', head('POST', '/graphql/', json)],
    ['another path', head('POST', '/api/v1/tickets', json)],
    ['no content type', head('POST', '/graphql', { 'content-length': '20' })],
    ['text/plain', head('POST', '/graphql', { ...json, 'content-type': 'text/plain' })],
    [
      'another charset',
      head('POST', '/graphql', { ...json, 'content-type': 'application/json; charset=latin1' }),
    ],
    ['a content encoding', head('POST', '/graphql', { ...json, 'content-encoding': 'gzip' })],
    [
      'a chunked body',
      head('POST', '/graphql', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
    ],
    ['no declared length', head('POST', '/graphql', { 'content-type': 'application/json' })],
    ['a length that is not a number', head('POST', '/graphql', { ...json, 'content-length': '2e3' })],
    ['a length past the limit', head('POST', '/graphql', { ...json, 'content-length': String(LIMIT + 1) })],
  ])('hands %s to express', (_name, req) => {
    expect(admits(req, LIMIT)).toBe(false);
  });

  it('reads bodies as body-parser does in strict mode', () => {
    expect(parseJsonBody(Buffer.from(''))).toEqual({});
    expect(parseJsonBody(Buffer.from(' \n{"query":"{ a }"}'))).toEqual({ query: '{ a }' });
    expect(parseJsonBody(Buffer.from('\ufeff[1]'))).toEqual([1]);
    for (const refused of ['42', '"x"', 'null', ' ', '{"a":', '\ufeff\ufeff{}']) {
      expect(() => parseJsonBody(Buffer.from(refused))).toThrow(
        expect.objectContaining({ status: 400, type: 'entity.parse.failed' }) as Error,
      );
    }
  });
});
