import { Router, type Request } from 'express';
import type { z } from 'zod';
import { NotFoundError, ValidationError } from '../../common/errors';
import { fieldErrorsOf } from '../../common/validation';
import { RING_INTERVAL_SECONDS } from '../../contracts/tickets/ticket.limits';
import { toTicketResource } from '../../contracts/tickets/ticket.resource';
import { secondsInWords } from '../figures';
import type { GraphClient } from '../graph-client';
import { inputGuard } from '../input-guard';
import { json, ref } from '../openapi';
import { API_PREFIX, registerRoutes, routeFor, type RestRoute } from '../route-table';
import { ticketsOpenApi, type TicketsDescriptions, type TicketsOpenApiSettings } from './tickets.openapi';
import {
  CREATE_TICKET,
  LIST_TICKETS,
  TICKET_ACCESS,
  TICKET_ACTIONS,
  TICKET_BY_EXTERNAL_ID,
  TICKET_BY_ID,
  type TicketAction,
  type TicketScope,
} from './tickets.operations';
import {
  createVariables,
  externalIdParameter,
  idempotencyKeyHeader,
  listQueryOf,
  listTicketsParameters,
  listTicketsQuery,
  listVariables,
  storeTicketRequest,
  ticketIdParameter,
  TICKETS_GUARDED_HEADERS,
} from './tickets.requests';
import { ACTION_MESSAGES, toTicketCreated, toTicketList } from './tickets.resources';

/** What a ticket route's handler works with. */
interface TicketsDependencies {
  graph: GraphClient;
  /** Where clients reach the platform: the list's page links are under it. */
  publicBaseUrl: string;
  /** This document's openapi.json, built once from the table and the configuration. */
  document: Record<string, unknown>;
}

type TicketRoute = RestRoute<TicketsDescriptions, TicketsDependencies>;

const route = routeFor<TicketsDescriptions, TicketsDependencies>();

/**
 * Input problems are reported after the credential: an unknown key gets 401 (and a key without
 * the scope 403) even when its request is also malformed, as Laravel's middleware order does.
 */
async function refuse(
  graph: GraphClient,
  req: Request,
  scope: TicketScope,
  error: z.ZodError,
): Promise<never> {
  await graph.execute(TICKET_ACCESS, { scope }, req);
  throw new ValidationError(fieldErrorsOf(error));
}

/** An order id that is not text is refused as a field; one that names no ticket is a 404. */
const EXTERNAL_ID_RULE =
  'The external id in the path holds a NUL, a lone surrogate or bytes that are not UTF-8 (external_id).';

/** The by-external-id routes' own 422 reason, after the move's. */
const externalIdRule = (suffix: string) => (suffix === '' ? '' : ` ${EXTERNAL_ID_RULE}`);

/** The moves, as the document describes them. */
const ACTIONS: readonly { action: TicketAction; summary: string; description: string }[] = [
  { action: 'ready', summary: 'Mark ready and alert the customer', description: 'waiting → ready.' },
  { action: 'collected', summary: 'Mark collected', description: 'waiting or ready → collected.' },
  { action: 'cancel', summary: 'Cancel', description: 'waiting or ready → cancelled.' },
  {
    action: 'ring',
    summary: 'Alert the customer again',
    description: `Ready tickets only, at most once every ${secondsInWords(RING_INTERVAL_SECONDS)}.`,
  },
];

const describeAction =
  (action: (typeof ACTIONS)[number], suffix: string, parameter: object) =>
  ({ ok, error, commonErrors, validation }: TicketsDescriptions) => ({
    operationId: `${action.action}Ticket${suffix}`,
    summary: action.summary,
    description: `${action.description} Needs tickets:write.`,
    parameters: [parameter],
    responses: {
      '200': ok(`{"message": "${ACTION_MESSAGES[action.action]}"}`, ref('ActionResponse')),
      ...commonErrors,
      '404': error('Ticket does not exist (or belongs to another branch).'),
      ...validation(`The move is not allowed from the ticket’s status.${externalIdRule(suffix)}`),
    },
  });

const actionsById: TicketRoute[] = ACTIONS.map((action) =>
  route({
    method: 'post',
    path: `/tickets/:id/${action.action}`,
    operations: [TICKET_ACTIONS[action.action]],
    openapi: describeAction(action, '', ticketIdParameter),
    handler: async (req, res, { graph }) => {
      await graph.execute(TICKET_ACTIONS[action.action], { id: req.params.id }, req);
      res.json({ message: ACTION_MESSAGES[action.action] });
    },
  }),
);

const actionsByExternalId: TicketRoute[] = ACTIONS.map((action) =>
  route({
    method: 'post',
    path: `/tickets/by-external/:externalId/${action.action}`,
    operations: [TICKET_ACTIONS[action.action]],
    openapi: describeAction(action, 'ByExternalId', externalIdParameter),
    handler: async (req, res, { graph }) => {
      await graph.execute(TICKET_ACTIONS[action.action], { externalId: req.params.externalId }, req);
      res.json({ message: ACTION_MESSAGES[action.action] });
    },
  }),
);

/** The thirteen endpoints of ticket-calling-api.md, openapi.json among them, in the document's order. */
export const TICKET_ROUTES: readonly TicketRoute[] = [
  route({
    method: 'get',
    path: '/tickets',
    operations: [LIST_TICKETS, TICKET_ACCESS],
    openapi: ({ ok, commonErrors, validation }) => ({
      operationId: 'listTickets',
      summary: 'List tickets, newest first',
      description:
        'Needs tickets:read. Search is case-insensitive over number, external_id, customer_name and note; from/to apply to created_at.',
      parameters: listTicketsParameters,
      responses: {
        '200': ok('A page of tickets', ref('TicketList')),
        ...commonErrors,
        ...validation('A query parameter is invalid.'),
      },
    }),
    handler: async (req, res, { graph, publicBaseUrl }) => {
      const raw = listQueryOf(req.query);
      const parsed = listTicketsQuery.safeParse(raw);
      if (!parsed.success) return refuse(graph, req, 'READ', parsed.error);
      const variables = listVariables(parsed.data);
      const { tickets } = await graph.execute(LIST_TICKETS, variables, req);
      res.json(
        toTicketList(tickets, {
          page: variables.page,
          perPage: variables.perPage,
          path: `${publicBaseUrl}${API_PREFIX}/tickets`,
          query: new URLSearchParams(raw),
        }),
      );
    },
  }),
  route({
    method: 'post',
    path: '/tickets',
    operations: [CREATE_TICKET, TICKET_ACCESS],
    openapi: ({ ok, error, commonErrors, bodyErrors, validation }) => ({
      operationId: 'createTicket',
      summary: 'Create a ticket',
      description: 'Needs tickets:write.',
      parameters: [idempotencyKeyHeader],
      requestBody: { required: false, ...json(ref('StoreTicketRequest')) },
      responses: {
        '201': ok('Created (or replayed)', ref('TicketCreated'), {
          'Idempotent-Replayed': {
            description: 'On a replay of an earlier request only.',
            schema: { type: 'string', enum: ['true'] },
          },
        }),
        ...commonErrors,
        ...bodyErrors,
        '409': error('A request with the same Idempotency-Key is still running.'),
        ...validation('Invalid data, a number or external_id already open, or a reused Idempotency-Key.'),
      },
    }),
    handler: async (req, res, { graph }) => {
      const parsed = storeTicketRequest.safeParse(req.body ?? {});
      if (!parsed.success) return refuse(graph, req, 'WRITE', parsed.error);
      const { createTicket } = await graph.execute(
        CREATE_TICKET,
        createVariables(parsed.data, req.get('Idempotency-Key')),
        req,
      );
      if (createTicket.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(201).json(toTicketCreated(createTicket.ticket));
    },
  }),
  route({
    method: 'get',
    path: '/tickets/:id',
    operations: [TICKET_BY_ID],
    openapi: ({ ok, error, commonErrors, validation }) => ({
      operationId: 'getTicket',
      summary: 'Get a ticket',
      description: 'Needs tickets:read.',
      parameters: [ticketIdParameter],
      responses: {
        '200': ok('The ticket', ref('Ticket')),
        ...commonErrors,
        '404': error('Ticket does not exist.'),
        ...validation(),
      },
    }),
    handler: async (req, res, { graph }) => {
      const { ticket } = await graph.execute(TICKET_BY_ID, { id: req.params.id }, req);
      res.json(toTicketResource(ticket));
    },
  }),
  ...actionsById,
  route({
    method: 'get',
    path: '/tickets/by-external/:externalId',
    operations: [TICKET_BY_EXTERNAL_ID],
    openapi: ({ ok, error, commonErrors, validation }) => ({
      operationId: 'getTicketByExternalId',
      summary: 'Get a ticket by the order id of the calling system',
      description: 'Needs tickets:read.',
      parameters: [externalIdParameter],
      responses: {
        '200': ok('The ticket', ref('Ticket')),
        ...commonErrors,
        '404': error('Ticket does not exist.'),
        ...validation(EXTERNAL_ID_RULE),
      },
    }),
    handler: async (req, res, { graph }) => {
      const { ticketByExternalId } = await graph.execute(
        TICKET_BY_EXTERNAL_ID,
        { externalId: req.params.externalId },
        req,
      );
      res.json(toTicketResource(ticketByExternalId));
    },
  }),
  ...actionsByExternalId,
  route({
    method: 'get',
    path: '/openapi.json',
    operations: [TICKET_ACCESS],
    openapi: ({ ok, commonErrors, validation }) => ({
      operationId: 'openApi',
      summary: 'Machine-readable description of the API',
      description: 'Needs a valid key with tickets:read.',
      responses: {
        '200': ok('This document', {
          type: 'object',
          properties: { openapi: { const: '3.1.0' } },
          required: ['openapi', 'info', 'paths', 'components'],
        }),
        ...commonErrors,
        ...validation(),
      },
    }),
    handler: async (req, res, { graph, document }) => {
      await graph.execute(TICKET_ACCESS, { scope: 'READ' }, req);
      res.json(document);
    },
  }),
];

/** The router of ticket-calling-api.md: its input guard, then every route of its table. */
export function ticketsRoutes(graph: GraphClient, settings: TicketsOpenApiSettings): Router {
  const router = Router();
  router.use(
    inputGuard({
      paths: ['/tickets', '/openapi.json'],
      routes: ['/tickets/by-external/:externalId', '/tickets/:id'],
      // A numeric id that cannot be one is the same 404 as an unknown one (docs/API-DECISIONS.md).
      identifiers: ['id'],
      headers: TICKETS_GUARDED_HEADERS,
      refuse: async (req, { errors, unaddressable }) => {
        await graph.execute(
          TICKET_ACCESS,
          { scope: ['GET', 'HEAD'].includes(req.method) ? 'READ' : 'WRITE' },
          req,
        );
        if (unaddressable) throw new NotFoundError('Ticket not found.');
        throw new ValidationError(errors);
      },
    }),
  );
  return registerRoutes(router, TICKET_ROUTES, {
    graph,
    publicBaseUrl: settings.publicBaseUrl,
    document: ticketsOpenApi(TICKET_ROUTES, settings),
  });
}
