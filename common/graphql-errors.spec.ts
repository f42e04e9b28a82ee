import { GraphQLError } from 'graphql';
import { NotFoundError, ValidationError } from './errors';
import { formatGraphQLError, SERVER_ERROR_MESSAGE } from './graphql-errors';
import { UpstreamUnreachableError } from './json-http';
import { createLogger } from './logger';
import { runWithRequestId } from './request-context';
import { say } from './messages';

const format = formatGraphQLError(createLogger({ service: 'spec', level: 'silent' }));

describe('formatGraphQLError', () => {
  it('passes a typed error through with its code and field errors, minus any stack', () => {
    const error = new ValidationError({ title: [say('field.max_characters', { field: 'title', max: 255 })] });
    const formatted = format(
      { ...error.toJSON(), extensions: { ...error.extensions, stacktrace: ['at x'] } },
      error,
    );
    expect(formatted.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      errors: { title: ['The title field must not be greater than 255 characters.'] },
    });
    expect(formatted.message).toBe('The title field must not be greater than 255 characters.');
  });

  it('keeps the caller’s own query mistakes visible', () => {
    const formatted = format(
      {
        message: 'Cannot query field "nope" on type "Query".',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
      new GraphQLError('Cannot query field "nope" on type "Query".'),
    );
    expect(formatted.message).toContain('nope');
  });

  it('replaces an unexpected error by "Server error" with the request id', () => {
    const raw = new GraphQLError('connect ECONNREFUSED 10.0.0.5:5432', {
      originalError: new Error('connect ECONNREFUSED 10.0.0.5:5432'),
    });
    const formatted = runWithRequestId('req-77', () =>
      format({ message: raw.message, path: ['plans'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }, raw),
    );
    expect(formatted).toEqual({
      message: SERVER_ERROR_MESSAGE,
      path: ['plans'],
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-77' },
    });
  });

  it('leaves a not-found error as the subgraph said it', () => {
    const error = new NotFoundError('Ticket not found.');
    expect(format(error.toJSON(), error)).toEqual({
      message: 'Ticket not found.',
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('answers a value Postgres refused as BAD_USER_INPUT, not a server error', () => {
    const cause = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: '22021',
    });
    const raw = new GraphQLError(cause.message, { originalError: cause });
    const formatted = format({ message: raw.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, raw);
    expect(formatted.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('answers a database that cannot be reached as UNAVAILABLE with a retry time', () => {
    const cause = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    const raw = new GraphQLError(cause.message, { originalError: cause });
    const formatted = format({ message: raw.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, raw);
    expect(formatted.extensions).toEqual({ code: 'UNAVAILABLE', retryAfter: 2 });
  });

  it('answers a connection that died under a query, which pg reports without a code, as UNAVAILABLE', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Client has encountered a connection error and is not queryable',
      'Knex: Timeout acquiring a connection. The pool is probably full.',
      'Transaction query already complete, run with DEBUG=knex:tx for more info',
    ]) {
      const raw = new GraphQLError(`insert into tickets.tickets … - ${message}`, {
        originalError: Object.assign(new Error(`insert into tickets.tickets … - ${message}`), {
          name: 'DriverException',
        }),
      });
      const formatted = format({ message: raw.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, raw);
      expect([message, formatted.extensions]).toEqual([message, { code: 'UNAVAILABLE', retryAfter: 2 }]);
    }
  });

  it('answers a subgraph that cannot be reached as UNAVAILABLE, naming no address', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4001'), { code: 'ECONNREFUSED' });
    const unreachable = new UpstreamUnreachableError('http://127.0.0.1:4001/graphql unreachable', { cause });
    const raw = new GraphQLError(unreachable.message, { originalError: unreachable });
    const formatted = format({ message: raw.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, raw);
    expect(formatted).toEqual({
      message: 'The service is temporarily unavailable; retry shortly.',
      extensions: { code: 'UNAVAILABLE', retryAfter: 5 },
    });
  });

  it('answers a subgraph whose load balancer had no replica for it (502, 503, 504) as UNAVAILABLE', () => {
    for (const status of [502, 503, 504]) {
      // What Apollo's RemoteGraphQLDataSource throws for a non-2xx answer.
      const fromResponse = new GraphQLError(`${status}: Service Unavailable`, {
        extensions: { response: { url: 'http://127.0.0.1:8404/graphql', status, body: {} } },
      });
      const raw = new GraphQLError(fromResponse.message, { originalError: fromResponse });
      expect(format({ message: raw.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, raw)).toEqual({
        message: 'The service is temporarily unavailable; retry shortly.',
        extensions: { code: 'UNAVAILABLE', retryAfter: 5 },
      });
    }
    const refused = new GraphQLError('400: Bad Request', { extensions: { response: { status: 400 } } });
    const raw = new GraphQLError(refused.message, { originalError: refused });
    expect(
      format({ message: raw.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, raw)?.extensions,
    ).toEqual(expect.objectContaining({ code: 'INTERNAL_SERVER_ERROR' }));
  });
});
