import { ratePolicies, type RatePolicy } from '../common/rate-budget';
import { EXPORTS_PER_MINUTE } from '../contracts/cv/export.limits';
import { JSON_RESUME_VERSION } from '../contracts/cv/json-resume.version';
import { PHOTO_MAX_BYTES, PHOTO_MAX_SIDE } from '../contracts/cv/photo.limits';
import {
  DEFAULT_PER_PAGE,
  IDEMPOTENCY_HOURS,
  RING_INTERVAL_SECONDS,
  TICKET_LIMITS,
  TicketSource,
} from '../contracts/tickets/ticket.limits';
import { cvOpenApi } from './cv/cv.openapi';
import { TEMPLATE_CACHE_CONTROL } from './cv/cv.resources';
import { CV_DOCUMENT_ROUTES, CV_ROUTES } from './cv/cv.routes';
import { bytesInWords } from './figures';
import { JSON_BODY_LIMIT_BYTES } from './http-errors';
import { PLANS_CACHE_CONTROL } from './plans/plans.resources';
import { PLAN_ROUTES } from './plans/plans.routes';
import { openApiPath, type RestRoute } from './route-table';
import { ticketsOpenApi } from './tickets/tickets.openapi';
import { TICKET_ROUTES } from './tickets/tickets.routes';
import { EXPORT_LINK_SECONDS } from '../contracts/cv/export-link';

interface Header {
  description: string;
  required?: boolean;
  schema: { type: string; pattern?: string };
}
interface Operation {
  summary: string;
  description?: string;
  responses: Record<string, { description: string; headers?: Record<string, Header> }>;
}
type Paths = Record<string, Record<string, Operation>>;

// Limits no deployment uses, so a figure copied into prose instead of read from them shows.
const config = {
  ticketsRateLimit: 7,
  boardRateLimit: 8,
  boardSyncRateLimit: 12,
  cvRateLimit: 9,
  sessionRateLimit: 10,
  publicRateLimit: 11,
  publicWriteRateLimit: 13,
};
const policies = ratePolicies(config);
const RENDER_TIMEOUT_MS = 2_500;
const BASE = 'https://api.example.test';

const ticketsDoc = (policy: RatePolicy = policies.tickets) =>
  ticketsOpenApi(TICKET_ROUTES, { publicBaseUrl: BASE, policy }) as { paths: Paths };
const cvDoc = (cv: RatePolicy = policies.cv, publicPolicy: RatePolicy = policies.public) =>
  cvOpenApi(CV_DOCUMENT_ROUTES, {
    publicBaseUrl: BASE,
    policies: { cv, public: publicPolicy },
    renderTimeoutMs: RENDER_TIMEOUT_MS,
  }) as { info: { description: string }; paths: Paths };

const operationsOf = (paths: Paths) =>
  Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

/** Every summary and description in a document, wherever it sits. */
function proseOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(proseOf);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    (key === 'summary' || key === 'description') && typeof inner === 'string' ? [inner] : proseOf(inner),
  );
}

/** Figures written as numbers, not those inside a name (the paper size `A4`, `UTF-8`). */
const figuresIn = (text: string) => text.match(/(?<![A-Za-z]-?)\d+(?:\.\d+)*/g) ?? [];

describe('the OpenAPI documents word their figures from the limits the adapter starts with', () => {
  it('ticket-calling-api.md: the configured per-key budget in the 429s and the RateLimit-Policy example', () => {
    const operations = operationsOf(ticketsDoc().paths);
    expect(operations).toHaveLength(13);
    for (const { path, method, operation } of operations) {
      const tooMany = operation.responses['429']!;
      expect([method, path, tooMany.description]).toEqual([
        method,
        path,
        `More than 7 requests a minute for the key, or a ring within ${RING_INTERVAL_SECONDS} seconds; without a valid key, the client address’s budget (RateLimit-Policy names it).`,
      ]);
      for (const [status, response] of Object.entries(operation.responses)) {
        // The JSON parser's refusals come before any limiter.
        const counted = !['400', '413', '415'].includes(status);
        expect([method, path, status, response.headers?.['RateLimit-Policy']?.description]).toEqual([
          method,
          path,
          status,
          counted
            ? 'IETF httpapi draft: the quota of the budget the request counted against, such as "tickets";q=7;w=60.'
            : undefined,
        ]);
      }
    }
    const other = ticketsDoc({ name: 'tickets', quota: 250, windowSeconds: 90 });
    expect(other.paths['/tickets']!.get!.responses['429']!.description).toMatch(
      /^More than 250 requests in 90 seconds for the key/,
    );
  });

  it('ticket-calling-api.md: the headers every answer carries are required, and their schemas name no budget', () => {
    for (const { path, method, operation } of operationsOf(ticketsDoc().paths)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = response.headers ?? {};
        const where = [method, path, status];
        const counted = !['400', '413', '415'].includes(status);
        expect([...where, headers['X-Request-Id']?.required]).toEqual([...where, true]);
        expect([...where, headers['RateLimit-Policy']?.required]).toEqual([...where, counted || undefined]);
        // Absent while Redis cannot count: the limits fail open.
        expect([...where, headers.RateLimit?.required]).toEqual([...where, undefined]);
        expect([...where, headers['Retry-After']?.required]).toEqual([
          ...where,
          status === '429' || undefined,
        ]);
        for (const header of Object.values(headers))
          expect(header.schema.pattern ?? '').not.toContain('tickets');
      }
    }
    const budgets = ticketsDoc().paths['/tickets']!.get!.responses['200']!.headers!;
    const policy = new RegExp(budgets['RateLimit-Policy']!.schema.pattern!, 'u');
    const left = new RegExp(budgets.RateLimit!.schema.pattern!, 'u');
    expect(policy.test('"tickets";q=120;w=60')).toBe(true);
    expect(policy.test('"public";q=300;w=60, "public-writes";q=30;w=60')).toBe(true);
    expect(policy.test('"tickets";q=120')).toBe(false);
    expect(left.test('"public";r=299;t=42')).toBe(true);
    expect(left.test('"tickets";r=-1;t=42')).toBe(false);
    expect(Object.keys(ticketsDoc().paths['/tickets']!.post!.responses).sort()).toEqual(
      ['201', '400', '401', '402', '403', '409', '413', '415', '422', '429'].sort(),
    );
  });

  it('cv-api.md: the account budget, the public budget of GET /plans and the render timeout', () => {
    const doc = cvDoc();
    expect(doc.info.description).toContain('; 9 requests a minute per account.');
    for (const { path, method, operation } of operationsOf(doc.paths)) {
      const budget = path === '/plans' ? '"public";q=11;w=60' : '"cv";q=9;w=60';
      for (const [status, response] of Object.entries(operation.responses)) {
        // The JSON parser's refusals come before any limiter.
        if (['400', '413', '415'].includes(status)) continue;
        expect([method, path, status, response.headers?.['RateLimit-Policy']?.description]).toEqual([
          method,
          path,
          status,
          `IETF httpapi draft: the quota of the budget the request counted against, such as ${budget}.`,
        ]);
      }
      if (path !== '/plans') {
        expect(operation.responses['429']!.description).toMatch(/more than 9 requests a minute/i);
      }
    }
    const pdf = doc.paths['/cvs/{uuid}/pdf']!.get!;
    expect(pdf.description).toContain(`at most ${EXPORTS_PER_MINUTE} exports a minute per account`);
    expect(pdf.responses['503']!.description).toBe(
      'The renderer is saturated or a render took over 2.5 seconds.',
    );
    const photo = doc.paths['/cvs/{uuid}/photo']!.post!;
    expect(photo.description).toContain(`at most ${PHOTO_MAX_SIDE} px a side`);
    expect(photo.responses['422']!.description).toContain(`over ${bytesInWords(PHOTO_MAX_BYTES)},`);
    expect(doc.paths['/cvs']!.post!.responses['413']!.description).toBe(
      `The body is larger than ${bytesInWords(JSON_BODY_LIMIT_BYTES)}.`,
    );
    expect(cvDoc({ name: 'cv', quota: 42, windowSeconds: 30 }).info.description).toContain(
      '; 42 requests in 30 seconds per account.',
    );
  });

  it('names no figure in prose that is not one of the limits, the configuration or a fixed standard', () => {
    // Windows other than a minute too, so no default figure (60, 120, 300…) is explained by them.
    const odd = {
      tickets: { ...policies.tickets, windowSeconds: 90 },
      cv: { ...policies.cv, windowSeconds: 45 },
      public: { ...policies.public, windowSeconds: 75 },
    };
    const explained = new Set(
      [
        // The budgets below and the render timeout.
        ...[odd.tickets, odd.cv, odd.public].flatMap((policy) => [policy.quota, policy.windowSeconds]),
        RENDER_TIMEOUT_MS / 1000,
        // The contracts' limits.
        RING_INTERVAL_SECONDS,
        IDEMPOTENCY_HOURS,
        TICKET_LIMITS.perPage,
        DEFAULT_PER_PAGE,
        EXPORTS_PER_MINUTE,
        EXPORT_LINK_SECONDS,
        PHOTO_MAX_SIDE,
        PHOTO_MAX_BYTES,
        bytesInWords(PHOTO_MAX_BYTES).split(' ')[0],
        bytesInWords(JSON_BODY_LIMIT_BYTES).split(' ')[0],
        JSON_RESUME_VERSION.replace(/^v/, ''),
        // The caching the handlers send, named in the headers' descriptions.
        ...figuresIn(TEMPLATE_CACHE_CONTROL),
        ...figuresIn(PLANS_CACHE_CONTROL),
        // The Ticket resource's source codes, listed from TicketSource.
        TicketSource.API,
        TicketSource.CASHIER,
        TicketSource.KIOSK,
        // Standards and examples: RFC 8187, ISO 8601, Iraq's mobile forms (07…, 9647…, 009647…),
        // the smallest page size and a list index in an example path.
        8187,
        8601,
        '07',
        9647,
        '009647',
        1,
        0,
      ].map(String),
    );
    for (const [name, doc] of [
      ['tickets', ticketsDoc(odd.tickets)],
      ['cv', cvDoc(odd.cv, odd.public)],
    ] as const) {
      // A status the document lists may be named in its prose ("… is 422 once the key is judged").
      const statuses = new Set(
        operationsOf(doc.paths).flatMap(({ operation }) => Object.keys(operation.responses)),
      );
      const unexplained = proseOf(doc).flatMap((text) =>
        figuresIn(text)
          .filter((figure) => !explained.has(figure) && !statuses.has(figure))
          .map((figure) => `${figure} in "${text}"`),
      );
      expect([name, unexplained]).toEqual([name, []]);
    }
  });
});

describe('each document is its route tables: no route undescribed, no description without a route', () => {
  const routesOf = (routes: readonly RestRoute<never, never>[]) =>
    routes.map((route) => `${route.method.toUpperCase()} ${openApiPath(route.path)}`);
  const describedIn = (paths: Paths) =>
    operationsOf(paths).map(({ path, method }) => `${method.toUpperCase()} ${path}`);

  it.each([
    ['tickets', TICKET_ROUTES, () => ticketsDoc().paths],
    ['cv', CV_DOCUMENT_ROUTES, () => cvDoc().paths],
  ] as const)('%s', (_name, routes, paths) => {
    const served = routesOf(routes);
    expect(new Set(served).size).toBe(served.length);
    expect(describedIn(paths()).sort()).toEqual([...served].sort());
    for (const { path, method, operation } of operationsOf(paths())) {
      expect([method, path, operation.summary.length > 0]).toEqual([method, path, true]);
      expect([method, path, Object.keys(operation.responses).length > 0]).toEqual([method, path, true]);
    }
    const ids = operationsOf(paths()).map(
      ({ operation }) => (operation as { operationId?: string }).operationId,
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the CV document covers the CV routes and GET /plans, each route sending at least one graph operation', () => {
    expect(CV_DOCUMENT_ROUTES).toEqual([...CV_ROUTES, ...PLAN_ROUTES]);
    for (const route of [...TICKET_ROUTES, ...CV_DOCUMENT_ROUTES]) {
      expect([route.method, route.path, route.operations.length > 0]).toEqual([
        route.method,
        route.path,
        true,
      ]);
    }
  });
});
