import { CV_DOCUMENT_ROUTES } from './cv/cv.routes';
import { ADAPTER_OPERATIONS } from './graph-client';
import { BOARD_PAGE_ROUTES } from './public/board-pages.routes';
import { CV_PAGE_ROUTES } from './public/cv-pages.routes';
import { TICKET_EXPORT_ROUTES } from './public/ticket-export.routes';
import { TICKET_PAGE_ROUTES, TICKET_PAGE_TOKEN_ROUTES } from './public/ticket-page.routes';
import { CREDENTIAL_LIMIT_OPERATIONS } from './rate-limit';
import { openApiPath, type TableRoute } from './route-table';
import { TICKET_ROUTES } from './tickets/tickets.routes';
import { WHATSAPP_WEBHOOK_ROUTES } from './whatsapp/whatsapp-webhook.routes';
import './rest-adapter';

const TABLES: Record<string, readonly TableRoute<never>[]> = {
  tickets: TICKET_ROUTES,
  cv: CV_DOCUMENT_ROUTES,
  'cv pages': CV_PAGE_ROUTES,
  'ticket page': [...TICKET_PAGE_ROUTES, ...TICKET_PAGE_TOKEN_ROUTES],
  'board pages': BOARD_PAGE_ROUTES,
  'ticket export': TICKET_EXPORT_ROUTES,
  'whatsapp webhook': WHATSAPP_WEBHOOK_ROUTES,
};

describe('the route tables', () => {
  it('name every graph operation the adapter declares, each by a route that sends it (or the credential limit, before any)', () => {
    const named = new Set(Object.values(TABLES).flatMap((routes) => routes.flatMap((r) => r.operations)));
    const sent = new Set([...named, ...CREDENTIAL_LIMIT_OPERATIONS]);
    expect(ADAPTER_OPERATIONS.filter((declared) => !sent.has(declared)).map((o) => o.name)).toEqual([]);
    expect([...named].filter((op) => !ADAPTER_OPERATIONS.includes(op)).map((o) => o.name)).toEqual([]);
  });

  it.each(Object.entries(TABLES))('%s: each method and path once', (_name, routes) => {
    const keys = routes.map((route) => `${route.method.toUpperCase()} ${openApiPath(route.path)}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
