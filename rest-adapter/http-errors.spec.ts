import type { GraphQLFormattedError } from 'graphql';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PaymentRequiredError,
  RateLimitedError,
  UnauthenticatedError,
  ValidationError,
} from '../common/errors';
import { GatewayUnavailableError, GraphOperationError } from './graph-client';
import { bodyIn, graphErrorToHttp, toHttpError } from './http-errors';
import { say } from '../common/messages';

/** What a subgraph's typed error looks like once it has crossed the gateway as JSON. */
const overTheWire = (error: Error & { toJSON(): GraphQLFormattedError }) =>
  JSON.parse(JSON.stringify(error.toJSON())) as GraphQLFormattedError;

describe('graphErrorToHttp', () => {
  it.each([
    [new UnauthenticatedError('Unauthenticated.'), 401],
    [new PaymentRequiredError('Your plan does not include the API.'), 402],
    [new ForbiddenError('This key lacks the tickets:write scope.'), 403],
    [new NotFoundError('Ticket not found.'), 404],
    [new ConflictError('Already exists.'), 409],
  ])('maps %s to %i with its message only', (error, status) => {
    const mapped = graphErrorToHttp([overTheWire(error)]);
    expect(mapped.status).toBe(status);
    expect(mapped.body).toEqual({ message: error.message });
    expect(mapped.headers).toEqual({});
  });

  it('maps BAD_USER_INPUT to 422 with the field errors', () => {
    const error = new ValidationError({
      customer_phone: [say('field.iraqi_mobile', { field: 'customer phone' })],
      note: [say('field.max_characters', { field: 'note', max: 255 })],
    });
    const mapped = graphErrorToHttp([overTheWire(error)]);
    expect(mapped.status).toBe(422);
    expect(mapped.body).toEqual({
      message: 'The customer phone field must be a valid Iraqi mobile number. (and 1 more error)',
      errors: {
        customer_phone: ['The customer phone field must be a valid Iraqi mobile number.'],
        note: ['The note field must not be greater than 255 characters.'],
      },
    });
  });

  it('says a refusal in Arabic from the ids of its sentences, with the fields named as sent', () => {
    const error = new ValidationError({
      title: [say('field.required', { field: 'title' })],
      locale: [say('field.selected_invalid', { field: 'locale' })],
      templateId: [say('field.integer', { field: 'template id' })],
    });
    const mapped = graphErrorToHttp([overTheWire(error)]);
    expect(bodyIn(mapped, 'ar')).toEqual({
      message: 'حقل title مطلوب. (و 2 أخطاء أخرى)',
      errors: {
        title: ['حقل title مطلوب.'],
        locale: ['قيمة حقل locale المختارة غير صالحة.'],
        template_id: ['يجب أن يكون حقل template id عدداً صحيحاً.'],
      },
    });
    expect(bodyIn(mapped, 'en')).toBe(mapped.body);
    // A sentence whose ids did not travel (a GraphQL variable error) stays as it came.
    const variable = graphErrorToHttp([
      { message: 'Variable "$x" is bad', extensions: { code: 'BAD_USER_INPUT' } },
    ]);
    expect(bodyIn(variable, 'ar')).toEqual(variable.body);
    // Ids that are not the catalogue's are not trusted.
    const forged = graphErrorToHttp([
      { message: 'x', extensions: { code: 'NOT_FOUND', messages: { message: [{ id: 'constructor' }] } } },
    ]);
    expect(bodyIn(forged, 'ar')).toEqual({ message: 'x' });
  });

  it('names the variable when Apollo rejects a badly typed one', () => {
    const mapped = graphErrorToHttp([
      {
        message: 'Variable "$perPage" got invalid value "x"; Int cannot represent non-integer value: "x"',
        extensions: { code: 'BAD_USER_INPUT' },
      },
    ]);
    expect(mapped.status).toBe(422);
    expect(Object.keys(mapped.body.errors ?? {})).toEqual(['per_page']);
  });

  it('names fields as the REST documents do, not as GraphQL does', () => {
    const mapped = graphErrorToHttp([
      overTheWire(new ValidationError({ externalId: [say('field.taken', { field: 'external id' })] })),
    ]);
    expect(mapped.body.errors).toEqual({ external_id: ['The external id has already been taken.'] });
  });

  it('maps RATE_LIMITED to 429 with Retry-After in whole seconds', () => {
    const mapped = graphErrorToHttp([overTheWire(new RateLimitedError(12.2, 'Wait before ringing again.'))]);
    expect(mapped.status).toBe(429);
    expect(mapped.headers).toEqual({ 'Retry-After': '13' });
    expect(mapped.body).toEqual({ message: 'Wait before ringing again.' });
  });

  it('answers 500 "Server error" with the request id for anything untyped, never its text', () => {
    const mapped = graphErrorToHttp(
      [
        {
          message: 'relation "tickets.tickets" does not exist',
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ],
      'req-1',
    );
    expect(mapped).toEqual({
      status: 500,
      body: { message: 'Server error', request_id: 'req-1' },
      headers: {},
    });
  });

  it('treats a malformed operation (an adapter bug) as a server error', () => {
    const mapped = graphErrorToHttp([
      { message: 'Cannot query field', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
    ]);
    expect(mapped.status).toBe(500);
  });

  it('prefers the first typed error when several come back', () => {
    const mapped = graphErrorToHttp([
      { message: 'something internal' },
      overTheWire(new NotFoundError('Ticket not found.')),
    ]);
    expect(mapped.status).toBe(404);
  });
});

describe('toHttpError', () => {
  it('maps a malformed JSON body to 400 and an oversized one to 413', () => {
    expect(
      toHttpError(Object.assign(new SyntaxError('Unexpected token'), { type: 'entity.parse.failed' }), 'r'),
    ).toEqual({
      status: 400,
      body: { message: 'The request body is not valid JSON.' },
      headers: {},
      messages: { message: [{ id: 'request.invalid_json' }] },
    });
    expect(toHttpError(Object.assign(new Error('too large'), { type: 'entity.too.large' }), 'r').status).toBe(
      413,
    );
  });

  it('answers 503 with Retry-After when the gateway cannot be reached', () => {
    const mapped = toHttpError(new GatewayUnavailableError('down'), 'r');
    expect(mapped.status).toBe(503);
    expect(mapped.headers['Retry-After']).toBe('5');
  });

  it('never puts a stack or message of an unexpected error in the body', () => {
    const mapped = toHttpError(new TypeError('Cannot read properties of undefined'), 'req-9');
    expect(mapped).toEqual({
      status: 500,
      body: { message: 'Server error', request_id: 'req-9' },
      headers: {},
    });
  });

  it('routes graph errors through the same mapping', () => {
    expect(toHttpError(new GraphOperationError([overTheWire(new NotFoundError())]), 'r').status).toBe(404);
  });
});
