import type { z } from 'zod';
import {
  components,
  json,
  parameterSchema,
  rateLimitHeaders,
  ref,
  requestIdHeader,
  responses,
  retryAfter,
} from '../openapi';
import { listTicketsQuery, TICKET_SCHEMA_IDS as SCHEMA_IDS } from './tickets.schemas';

const { ok, error } = responses(
  { ...rateLimitHeaders('"tickets";q=120;w=60'), ...requestIdHeader() },
  'Error',
);

const commonErrors = {
  '401': error('Wrong, missing or revoked key.'),
  '402': error('The venue’s plan does not include the API.'),
  '403': error('The key lacks the required scope.'),
  '429': error(
    'More than 120 requests a minute for the key, or a ring within 30 seconds.',
    'Error',
    retryAfter,
  ),
};

const byId = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const byExternalId = {
  name: 'externalId',
  in: 'path',
  required: true,
  schema: { type: 'string', maxLength: 100 },
  description: 'Order id of the calling system; the branch’s open ticket with it comes first.',
};

const ACTIONS = [
  ['ready', 'Mark ready and alert the customer', 'Ticket marked ready', 'waiting → ready.'],
  ['collected', 'Mark collected', 'Ticket marked collected', 'waiting or ready → collected.'],
  ['cancel', 'Cancel', 'Ticket cancelled', 'waiting or ready → cancelled.'],
  [
    'ring',
    'Alert the customer again',
    'Customer alerted again',
    'Ready tickets only, at most once every 30 seconds.',
  ],
] as const;

function actionPaths(prefix: string, parameter: object, suffix: string): Record<string, unknown> {
  return Object.fromEntries(
    ACTIONS.map(([action, summary, message, description]) => [
      `${prefix}/${action}`,
      {
        post: {
          operationId: `${action}Ticket${suffix}`,
          summary,
          description: `${description} Needs tickets:write.`,
          parameters: [parameter],
          responses: {
            '200': ok(`{"message": "${message}"}`, ref('ActionResponse')),
            ...commonErrors,
            '404': error('Ticket does not exist (or belongs to another branch).'),
            '422': error('The move is not allowed from the ticket’s status.', 'ValidationError'),
          },
        },
      },
    ]),
  );
}

/** The OpenAPI 3.1 description of ticket-calling-api.md, built from the schemas that validate requests. */
export function ticketsOpenApi(publicBaseUrl: string): Record<string, unknown> {
  const listParameters = Object.entries(listTicketsQuery.shape).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema: parameterSchema(schema as z.ZodType),
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ticket-Calling Service API',
      version: '1.0.0',
      description: 'Order tickets that call customers. Every endpoint needs a branch API key.',
    },
    servers: [{ url: `${publicBaseUrl}/api/v1` }],
    security: [{ bearer: [] }],
    paths: {
      '/tickets': {
        get: {
          operationId: 'listTickets',
          summary: 'List tickets, newest first',
          description:
            'Needs tickets:read. Search is case-insensitive over number, external_id, customer_name and note; from/to apply to created_at.',
          parameters: listParameters,
          responses: {
            '200': ok('A page of tickets', ref('TicketList')),
            ...commonErrors,
            '422': error('A query parameter is invalid.', 'ValidationError'),
          },
        },
        post: {
          operationId: 'createTicket',
          summary: 'Create a ticket',
          description: 'Needs tickets:write.',
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', minLength: 1, maxLength: 255 },
              description:
                'Repeating the key with the same body returns the first response and creates nothing; kept 24 hours.',
            },
          ],
          requestBody: { required: false, ...json(ref('StoreTicketRequest')) },
          responses: {
            '201': ok('Created (or replayed)', ref('TicketCreated'), {
              'Idempotent-Replayed': {
                description: '"true" on a replay of an earlier request.',
                schema: { type: 'string' },
              },
            }),
            ...commonErrors,
            '409': error('A request with the same Idempotency-Key is still running.'),
            '422': error(
              'Invalid data, a number or external_id already open, or a reused Idempotency-Key.',
              'ValidationError',
            ),
          },
        },
      },
      '/tickets/{id}': {
        get: {
          operationId: 'getTicket',
          summary: 'Get a ticket',
          description: 'Needs tickets:read.',
          parameters: [byId],
          responses: {
            '200': ok('The ticket', ref('Ticket')),
            ...commonErrors,
            '404': error('Ticket does not exist.'),
          },
        },
      },
      ...actionPaths('/tickets/{id}', byId, ''),
      '/tickets/by-external/{externalId}': {
        get: {
          operationId: 'getTicketByExternalId',
          summary: 'Get a ticket by the order id of the calling system',
          description: 'Needs tickets:read.',
          parameters: [byExternalId],
          responses: {
            '200': ok('The ticket', ref('Ticket')),
            ...commonErrors,
            '404': error('Ticket does not exist.'),
          },
        },
      },
      ...actionPaths('/tickets/by-external/{externalId}', byExternalId, 'ByExternalId'),
      '/openapi.json': {
        get: {
          operationId: 'openApi',
          summary: 'Machine-readable description of the API',
          description: 'Needs a valid key with tickets:read.',
          responses: { '200': ok('This document', { type: 'object' }), ...commonErrors },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A branch API key.' } },
      schemas: components(SCHEMA_IDS, ['StoreTicketRequest']),
    },
  };
}
