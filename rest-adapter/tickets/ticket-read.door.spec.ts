import type { IncomingMessage } from 'node:http';
import { admittedId } from './ticket-read.door';

const request = (url: string, headers: IncomingMessage['headers'] = {}, method = 'GET') =>
  ({ method, url, headers }) as IncomingMessage;

describe('what the REST adapter front door admits: only what the express route would pass untouched', () => {
  it('admits a GET of a ticket by its digits, with or without a key, language or Idempotency-Key', () => {
    expect(admittedId(request('/api/v1/tickets/42'))).toBe('42');
    expect(
      admittedId(
        request('/api/v1/tickets/007', {
          authorization: 'Bearer tk_x',
          'accept-language': 'ar',
          'idempotency-key': 'k-1',
          'content-length': '0',
        }),
      ),
    ).toBe('007');
    expect(admittedId(request('/api/v1/tickets/99999999999999999999'))).toBe('99999999999999999999');
  });

  it('hands express another method, path, a query string, a body, or a header its input guard refuses', () => {
    const refused = [
      request('/api/v1/tickets/42', {}, 'HEAD'),
      request('/api/v1/tickets/42', {}, 'POST'),
      request('/api/v1/tickets/42/'),
      request('/api/v1/tickets/42?x=1'),
      request('/api/v1/tickets/42?'),
      request('/api/v1/tickets/%342'),
      request('/API/V1/TICKETS/42'),
      request('/api/v1/tickets/by-external/42'),
      request('/api/v1/tickets/42/ready'),
      request('/api/v1/tickets/4a'),
      request('/api/v1/tickets/999999999999999999999'),
      request('/api/v1/tickets'),
      request('/api/v1/tickets/42', { 'content-length': '7' }),
      request('/api/v1/tickets/42', { 'transfer-encoding': 'chunked' }),
      request('/api/v1/tickets/42', { 'accept-language': 'ar\u0000' }),
      request('/api/v1/tickets/42', { 'idempotency-key': '\ud800' }),
    ];
    expect(refused.map((req) => admittedId(req) ?? 'express')).toEqual(refused.map(() => 'express'));
  });
});
