import { Router, type Request, type Response } from 'express';
import type { z } from 'zod';
import { NotFoundError, ValidationError } from '../../common/errors';
import { fieldErrorsOf } from '../../common/validation';
import { DEFAULT_PER_PAGE } from '../../subgraphs/tickets/ticket.rules';
import { operation, type GraphClient } from '../graph-client';
import { inputGuard } from '../input-guard';
import { paginate } from '../pagination';
import { TICKET_FIELDS, toTicketResource, type GraphTicket } from './ticket.resource';
import { ticketsOpenApi } from './tickets.openapi';
import { listTicketsQuery, storeTicketRequest } from './tickets.schemas';

type Scope = 'READ' | 'WRITE';

const TICKET_ACCESS = operation<{ ticketAccess: boolean }, { scope: Scope }>(
  'TicketAccess',
  `query TicketAccess($scope: TicketScope!) { ticketAccess(scope: $scope) }`,
);

export const TICKET_BY_ID = operation<{ ticket: GraphTicket }, { id: string }>(
  'TicketById',
  `query TicketById($id: ID!) { ticket(id: $id) { ...TicketFields } } ${TICKET_FIELDS}`,
);

const TICKET_BY_EXTERNAL_ID = operation<{ ticketByExternalId: GraphTicket }, { externalId: string }>(
  'TicketByExternalId',
  `query TicketByExternalId($externalId: String!) { ticketByExternalId(externalId: $externalId) { ...TicketFields } } ${TICKET_FIELDS}`,
);

interface ListVariables extends Record<string, unknown> {
  filter: { search?: string; status?: string; externalId?: string; from?: string; to?: string };
  page: number;
  perPage: number;
}

const LIST_TICKETS = operation<{ tickets: { items: GraphTicket[]; total: number } }, ListVariables>(
  'Tickets',
  `query Tickets($filter: TicketFilter, $page: Int!, $perPage: Int!) {
     tickets(filter: $filter, page: $page, perPage: $perPage) { total items { ...TicketFields } }
   } ${TICKET_FIELDS}`,
);

interface CreateVariables extends Record<string, unknown> {
  input: {
    number?: string | null;
    externalId?: string | null;
    customerName?: string | null;
    customerPhone?: string | null;
    note?: string | null;
  };
  idempotencyKey: string | null;
}

export const CREATE_TICKET = operation<
  {
    createTicket: {
      replayed: boolean;
      ticket: { id: string; number: string; token: string; qrUrl: string; publicUrl: string };
    };
  },
  CreateVariables
>(
  'CreateTicket',
  `mutation CreateTicket($input: CreateTicketInput!, $idempotencyKey: String) {
     createTicket(input: $input, idempotencyKey: $idempotencyKey) { replayed ticket { id number token qrUrl publicUrl } }
   }`,
);

type Action = 'markTicketReady' | 'markTicketCollected' | 'cancelTicket' | 'ringTicket';

const ACTIONS: { path: string; field: Action; message: string }[] = [
  { path: 'ready', field: 'markTicketReady', message: 'Ticket marked ready' },
  { path: 'collected', field: 'markTicketCollected', message: 'Ticket marked collected' },
  { path: 'cancel', field: 'cancelTicket', message: 'Ticket cancelled' },
  { path: 'ring', field: 'ringTicket', message: 'Customer alerted again' },
];

const actionOperation = (field: Action) =>
  operation<Record<Action, { id: string }>, { id?: string; externalId?: string }>(
    field,
    `mutation ${field}($id: ID, $externalId: String) { ${field}(id: $id, externalId: $externalId) { id } }`,
  );

/**
 * Input problems are reported after the credential: an unknown key gets 401 (and a key without
 * the scope 403) even when its request is also malformed, as Laravel's middleware order does.
 */
async function refuse(graph: GraphClient, req: Request, scope: Scope, error: z.ZodError): Promise<never> {
  await graph.execute(TICKET_ACCESS, { scope }, req);
  throw new ValidationError(fieldErrorsOf(error));
}

function collectionPath(publicBaseUrl: string): string {
  return `${publicBaseUrl}/api/v1/tickets`;
}

/** The thirteen endpoints of ticket-calling-api.md (openapi.json is served beside them). */
export function ticketsRoutes(graph: GraphClient, publicBaseUrl: string): Router {
  const router = Router();
  const openApi = ticketsOpenApi(publicBaseUrl);

  router.use(
    inputGuard({
      paths: ['/tickets', '/openapi.json'],
      routes: ['/tickets/by-external/:externalId', '/tickets/:id'],
      // A numeric id that cannot be one is the same 404 as an unknown one (docs/API-DECISIONS.md).
      identifiers: ['id'],
      headers: ['idempotency-key', 'accept-language'],
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

  router.get('/openapi.json', async (req, res) => {
    await graph.execute(TICKET_ACCESS, { scope: 'READ' }, req);
    res.json(openApi);
  });

  router.get('/tickets', async (req, res) => {
    const raw = Object.fromEntries(
      Object.entries(req.query).filter(
        ([key, value]) => key in listTicketsQuery.shape && typeof value === 'string' && value !== '',
      ),
    );
    const parsed = listTicketsQuery.safeParse(raw);
    if (!parsed.success) return refuse(graph, req, 'READ', parsed.error);
    const q = parsed.data;
    const page = q.page ?? 1;
    const perPage = q.per_page ?? DEFAULT_PER_PAGE;
    const { tickets } = await graph.execute(
      LIST_TICKETS,
      {
        filter: {
          ...(q.search !== undefined ? { search: q.search } : {}),
          ...(q.status !== undefined ? { status: q.status.toUpperCase() } : {}),
          ...(q.external_id !== undefined ? { externalId: q.external_id } : {}),
          ...(q.from !== undefined ? { from: new Date(q.from).toISOString() } : {}),
          ...(q.to !== undefined ? { to: new Date(q.to).toISOString() } : {}),
        },
        page,
        perPage,
      },
      req,
    );
    const query = new URLSearchParams(raw as Record<string, string>);
    res.json(
      paginate(tickets.items.map(toTicketResource), {
        page,
        perPage,
        total: tickets.total,
        path: collectionPath(publicBaseUrl),
        query,
      }),
    );
  });

  router.post('/tickets', async (req, res) => {
    const body: unknown = req.body ?? {};
    const parsed = storeTicketRequest.safeParse(body);
    if (!parsed.success) return refuse(graph, req, 'WRITE', parsed.error);
    const input = parsed.data;
    const idempotencyKey = req.get('Idempotency-Key');
    const { createTicket } = await graph.execute(
      CREATE_TICKET,
      {
        input: {
          number: input.number ?? null,
          externalId: input.external_id ?? null,
          customerName: input.customer_name ?? null,
          customerPhone: input.customer_phone ?? null,
          note: input.note ?? null,
        },
        idempotencyKey: idempotencyKey ?? null,
      },
      req,
    );
    if (createTicket.replayed) res.setHeader('Idempotent-Replayed', 'true');
    const { ticket } = createTicket;
    res.status(201).json({
      message: 'Ticket created successfully',
      id: Number(ticket.id),
      number: ticket.number,
      token: ticket.token,
      qr_url: ticket.qrUrl,
      public_url: ticket.publicUrl,
    });
  });

  const sendTicket = (res: Response, ticket: GraphTicket) => {
    res.json(toTicketResource(ticket));
  };

  router.get('/tickets/by-external/:externalId', async (req, res) => {
    const { ticketByExternalId } = await graph.execute(
      TICKET_BY_EXTERNAL_ID,
      { externalId: req.params.externalId },
      req,
    );
    sendTicket(res, ticketByExternalId);
  });

  router.get('/tickets/:id', async (req, res) => {
    const { ticket } = await graph.execute(TICKET_BY_ID, { id: req.params.id }, req);
    sendTicket(res, ticket);
  });

  for (const action of ACTIONS) {
    const op = actionOperation(action.field);
    router.post(`/tickets/by-external/:externalId/${action.path}`, async (req, res) => {
      await graph.execute(op, { externalId: req.params.externalId }, req);
      res.json({ message: action.message });
    });
    router.post(`/tickets/:id/${action.path}`, async (req, res) => {
      await graph.execute(op, { id: req.params.id }, req);
      res.json({ message: action.message });
    });
  }

  return router;
}
