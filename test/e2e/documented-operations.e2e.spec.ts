import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OperationTypeNode, parse, specifiedRules, validate, type GraphQLSchema } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { projectRoot } from '../../common/paths';
import { startGateway, type RunningGateway } from '../../gateway/gateway';
import { startEvents, type RunningEvents } from '../../subgraphs/tickets/events/events';
import { apiSchema } from '../../tools/api-schema';
import { DEMO_CV_KEY, DEMO_TICKET_KEY, seedDemoData, type DemoData } from '../../tools/database-setup';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  documentedOperations,
  operationsOf,
  rootFieldsOf,
  type DocumentedOperation,
} from '../support/documented-operations';
import { askGraph, bearer, graphData, type GraphReply } from '../support/graph';
import { variablesFor } from '../support/operation-variables';
import { panelFixtures } from '../support/panel-fixtures';
import { startPlatform, type Platform } from '../support/platform';
import { waitUntil } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const DOCUMENTED = documentedOperations(projectRoot());
const PANEL = panelFixtures();

/**
 * GraphQL-looking text in the docs that is not a whole operation, by file and text, with why it
 * is not sent. The test fails on any other unread text, and on an entry here that is gone.
 */
const NOT_OPERATIONS: Record<string, string> = {
  'docs/ARCHITECTURE.md query CvPlans { plans(product: CV) { … } }':
    'abridged on purpose: it names the operation the REST adapter sends for GET /plans, whose full text gateway/limits/query-limits.spec.ts holds within the limits',
};

/**
 * Refusals the docs describe in prose rather than write out, each written out whole here so that
 * it is sent and must still be refused; `mentions` must still be in the doc, or the entry is stale.
 */
const DESCRIBED_REFUSALS = [
  {
    file: 'docs/FRONTEND.md',
    mentions: '`webhookEndpoints(first: 100) { deliveries(first: 100) { attemptLog(last: 100) … } }`',
    reason: 'the cost budget’s nested pages under `myVenues`, "ten million", over GRAPHQL_MAX_COST',
    text: '{ myVenues { webhookEndpoints(first: 100) { deliveries(first: 100) { attemptLog(last: 100) { attempt } } } } }',
  },
];

/** Codes of an operation refused before it ran: a limit, a parse or a validation failure. */
const REFUSAL_CODES = new Set(['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'BAD_REQUEST']);

/** Answers of a well-formed operation that the data or the role decided: acceptable, reported. */
const BUSINESS_CODES = new Set(['NOT_FOUND', 'FORBIDDEN', 'UNAUTHENTICATED', 'CONFLICT', 'BAD_USER_INPUT']);

type Credential = 'none' | 'session' | 'branch key' | 'cv key';

const PUBLIC_FIELDS = new Set([
  'plans',
  'plan',
  'signUp',
  'signIn',
  'requestPasswordReset',
  'resetPassword',
  'verifyEmail',
  'ticketByToken',
  'linkTicket',
  'enableTicketAlerts',
  'optInTicketSms',
  'subscribeTicketPush',
  'submitTicketFeedback',
  'displayBoard',
  'pairBoardDevice',
  'sharedCvHtml',
  'exportCvByLink',
  'ticketUpdated',
  'displayTicketsUpdated',
]);
const BRANCH_FIELDS = new Set([
  'tickets',
  'ticket',
  'ticketByExternalId',
  'currentBranch',
  'ticketAccess',
  'createTicket',
  'markTicketReady',
  'markTicketCollected',
  'cancelTicket',
  'ringTicket',
  'branchTicketsUpdated',
]);
const CV_API_FIELDS = new Set([
  'me',
  'cvs',
  'cv',
  'cvExportUrl',
  'templates',
  'template',
  'templatePreviewHtml',
  'createCv',
  'updateCv',
  'duplicateCv',
  'switchCvTemplate',
  'setCvPhoto',
  'removeCvPhoto',
  'deleteCv',
  'importJsonResume',
  'exportCv',
]);

/**
 * Who sends an operation, by the root fields it touches, as the platform's clients do: only
 * public fields (sign-in, the catalogue, what a ticket's or display's token opens), nobody; only a
 * branch's ticket fields, the branch's API key, as a point of sale (and README's live example)
 * sends them; only the CV API's fields, the CV account's X-API-Key, as a CV integration does;
 * anything else (the viewer, venues and their management, or a mix) the owner's session, with
 * X-Branch-Id so that ticket fields in a mix have their branch. The owner is the demo venue's,
 * who also signs in to the demo CV account, so one person reaches everything the panel shows.
 */
function credentialFor(rootFields: string[]): Credential {
  if (rootFields.every((field) => PUBLIC_FIELDS.has(field))) return 'none';
  if (rootFields.every((field) => BRANCH_FIELDS.has(field))) return 'branch key';
  if (rootFields.every((field) => CV_API_FIELDS.has(field))) return 'cv key';
  return 'session';
}

/** What went wrong with one operation, sorted by whether the test may accept it. */
interface Outcome {
  operation: string;
  credential: Credential;
  /** Refused before it ran: a limit (cost, depth, aliases, tokens, directives) or validation. */
  refusals: string[];
  /** NOT_FOUND, FORBIDDEN and the like: the operation was accepted and the data said no. */
  businessErrors: string[];
  /** Anything else: a server error, a closed socket, a rate limit. */
  failures: string[];
  /** The cost the gateway estimated, for queries. */
  cost?: number;
}

function limitNamed(message: string): string {
  const limit = /cost|depth|alias|token|directive/i.exec(message)?.[0]?.toLowerCase();
  return limit === undefined ? 'validation' : `${limit} limit`;
}

/** Sorts a reply's errors; a variable the gateway cannot coerce is the document's mistake too. */
function judge(
  operation: string,
  credential: Credential,
  status: number,
  errors: GraphReply['errors'],
): Outcome {
  const outcome: Outcome = { operation, credential, refusals: [], businessErrors: [], failures: [] };
  for (const error of errors ?? []) {
    const code = typeof error.extensions?.code === 'string' ? error.extensions.code : undefined;
    const said = `${code ?? 'no code'}: ${error.message}`;
    if (REFUSAL_CODES.has(code ?? '') || (code === 'BAD_USER_INPUT' && /^Variable "\$/.test(error.message))) {
      outcome.refusals.push(`${limitNamed(error.message)}: ${said}`);
    } else if (BUSINESS_CODES.has(code ?? '')) {
      outcome.businessErrors.push(said);
    } else {
      outcome.failures.push(said);
    }
  }
  if (status >= 400 && outcome.refusals.length === 0 && outcome.failures.length === 0) {
    outcome.failures.push(`HTTP ${status}`);
  }
  return outcome;
}

describe('every documented operation and every panel screen is accepted by the gateway', () => {
  let database: TestDatabase;
  let platform: Platform;
  let events: RunningEvents;
  let receiver: WebhookReceiver;
  /**
   * The same graph with a cost limit of 1: it refuses every operation, naming its estimate. So the
   * figures printed are the gateway's own, whichever estimator it runs, before and after a change.
   */
  let costProbe: RunningGateway;
  let schema: GraphQLSchema;
  let demo: DemoData;
  let session: string;
  const ids: Record<string, string> = {};
  const outcomes: Outcome[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = new WebhookReceiver();
    const hooks = await receiver.start();
    // Default limits otherwise: the docs' operations must pass as a reader's would.
    platform = await startPlatform(database, { WEBHOOK_ALLOW_INSECURE: 'true' });
    events = await startEvents(platform.config);
    costProbe = await startGateway({
      ...platform.config,
      ports: { ...platform.config.ports, gateway: 0 },
      graphqlLimits: { ...platform.config.graphqlLimits, maxCost: 1 },
    });
    schema = apiSchema();
    // README's examples are written against npm start's demo data; the same data makes them literal.
    demo = await seedDemoData(platform.config);
    await makeObjectsToPointAt(hooks);
  });

  afterAll(async () => {
    await writeReport();
    await costProbe?.stop();
    await events?.stop();
    await platform?.stop();
    await receiver?.stop();
    await database.drop();
  });

  const gql = <T>(query: string, variables: Record<string, unknown>, headers: Record<string, string>) =>
    graphData<T>(platform.gatewayUrl, query, variables, headers);

  /** The owner's session, a ticket, a display, a board, a webhook delivery and a history to page. */
  async function makeObjectsToPointAt(hooks: string): Promise<void> {
    ({
      signIn: { token: session },
    } = await gql<{ signIn: { token: string } }>(
      'mutation ($i: SignInInput!) { signIn(input: $i) { token } }',
      { i: { email: demo.ownerEmail, password: demo.ownerPassword, device: 'documented operations' } },
      {},
    ));
    const owner = bearer(session);
    // The demo key's branch is the owner's; asked of the key so that setup weighs little under any estimate.
    const { currentBranch } = await gql<{ currentBranch: { id: string; venue: { id: string } } }>(
      '{ currentBranch { id venue { id } } }',
      {},
      bearer(DEMO_TICKET_KEY),
    );
    ids.venue = currentBranch.venue.id;
    ids.branch = currentBranch.id;
    const { createTicket } = await gql<{ createTicket: { ticket: { id: string; token: string } } }>(
      'mutation { createTicket(input: { customerName: "Huda" }) { ticket { id token } } }',
      {},
      bearer(DEMO_TICKET_KEY),
    );
    ids.ticket = createTicket.ticket.id;
    ids.ticketToken = createTicket.ticket.token;
    const { createDisplay } = await gql<{ createDisplay: { url: string; display: { id: string } } }>(
      'mutation ($i: CreateDisplayInput!) { createDisplay(input: $i) { url display { id } } }',
      { i: { branchId: ids.branch, name: 'Hall screen' } },
      owner,
    );
    ids.display = createDisplay.display.id;
    ids.displayToken = createDisplay.url.split('/display/')[1]!;
    await gql(
      'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { code } }',
      { i: { branchId: ids.branch, name: 'Counter tablet' } },
      owner,
    );
    const { addWebhookEndpoint } = await gql<{
      addWebhookEndpoint: { secret: string; endpoint: { id: string } };
    }>(
      'mutation ($i: AddWebhookEndpointInput!) { addWebhookEndpoint(input: $i) { secret endpoint { id } } }',
      { i: { venueId: ids.venue, url: hooks } },
      owner,
    );
    receiver.secret = addWebhookEndpoint.secret;
    ids.endpoint = addWebhookEndpoint.endpoint.id;
    await gql('mutation ($id: ID!) { sendTestWebhook(endpointId: $id) { id } }', { id: ids.endpoint }, owner);
    await receiver.waitFor((received) => received.length >= 1);
    const { venue } = await gql<{ venue: { auditLog: { endCursor: string } } }>(
      'query ($id: ID!) { venue(id: $id) { auditLog(first: 1) { endCursor } } }',
      { id: ids.venue },
      owner,
    );
    ids.auditCursor = venue.auditLog.endCursor;
    const cvApi = { 'x-api-key': DEMO_CV_KEY };
    const { cvs, templates } = await gql<{ cvs: { id: string }[]; templates: { id: string }[] }>(
      '{ cvs { id } templates { id } }',
      {},
      cvApi,
    );
    ids.cv = cvs[0]!.id;
    ids.template = templates[0]!.id;
  }

  /** The real object for an argument or input field that names one; undefined: a sample will do. */
  function known(coordinate: string): unknown {
    const exact: Record<string, string | undefined> = {
      'Query.venue.id': ids.venue,
      'Query.cv.id': ids.cv,
      'Query.cvExportUrl.id': ids.cv,
      'Query.template.id': ids.template,
      'Query.templatePreviewHtml.id': ids.template,
      'Query.ticket.id': ids.ticket,
      'Query.ticketByToken.token': ids.ticketToken,
      'Subscription.ticketUpdated.token': ids.ticketToken,
      'Query.displayBoard.token': ids.displayToken,
      'Subscription.displayTicketsUpdated.token': ids.displayToken,
      'Venue.auditLog.after': ids.auditCursor,
    };
    if (coordinate in exact) return exact[coordinate];
    const field = coordinate.split('.').pop()!;
    const byInputField: Record<string, string | undefined> = {
      venueId: ids.venue,
      branchId: ids.branch,
      templateId: ids.template,
      displayId: ids.display,
      endpointId: ids.endpoint,
    };
    return byInputField[field];
  }

  function headersFor(credential: Credential): Record<string, string> {
    switch (credential) {
      case 'none':
        return {};
      case 'branch key':
        return bearer(DEMO_TICKET_KEY);
      case 'cv key':
        return { 'x-api-key': DEMO_CV_KEY };
      case 'session':
        return { ...bearer(session), 'x-branch-id': ids.branch! };
    }
  }

  /** The estimate the gateway made, read from the probe's refusal; undefined when it had none. */
  async function estimatedCost(
    text: string,
    variables: Record<string, unknown>,
    headers: Record<string, string>,
  ): Promise<number | undefined> {
    const reply = await askGraph(`http://127.0.0.1:${costProbe.port}/graphql`, text, variables, headers);
    const found = (reply.errors ?? [])
      .map((error) => /cost limit of \d+ exceeded, found (\d+)/i.exec(error.message)?.[1])
      .find((figure) => figure !== undefined);
    return found === undefined ? undefined : Number(found);
  }

  async function sendOverHttp(
    label: string,
    text: string,
    credential: Credential,
    variables: Record<string, unknown>,
    isQuery: boolean,
  ): Promise<Outcome> {
    const headers = headersFor(credential);
    const reply = await askGraph(platform.gatewayUrl, text, variables, headers);
    const outcome = judge(label, credential, reply.status, reply.errors);
    // Only queries go to the probe: a mutation weighed under its limit would run a second time.
    if (isQuery) {
      const cost = await estimatedCost(text, variables, headers);
      if (cost !== undefined) outcome.cost = cost;
    }
    return outcome;
  }

  const subscriberCount = async () => {
    const response = await fetch(platform.gatewayUrl.replace(/\/graphql$/, '/healthz'));
    return ((await response.json()) as { subscribers: number }).subscribers;
  };

  /** Accepted once the gateway counts the subscription; refused by an error or a closed socket. */
  async function subscribe(
    label: string,
    text: string,
    credential: Credential,
    variables: Record<string, unknown>,
  ): Promise<Outcome> {
    const before = await subscriberCount();
    const headers = headersFor(credential);
    const client = createClient({
      url: platform.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: headers,
      retryAttempts: 0,
    });
    let ended: { errors?: GraphReply['errors']; closed?: string } | undefined;
    const dispose = client.subscribe(
      { query: text, variables },
      {
        next: () => undefined,
        error: (error: unknown) => {
          ended = Array.isArray(error)
            ? { errors: error as GraphReply['errors'] }
            : { closed: error instanceof Error ? error.message : JSON.stringify(error) };
        },
        complete: () => (ended ??= { closed: 'completed by the server' }),
      },
    );
    try {
      await waitUntil(async () => ended !== undefined || (await subscriberCount()) > before, 10_000, label);
    } finally {
      dispose();
      await client.dispose();
    }
    const outcome = judge(label, credential, 200, ended?.errors);
    if (ended?.closed !== undefined) outcome.failures.push(`socket ended: ${ended.closed}`);
    return outcome;
  }

  function send(
    label: string,
    operation: Pick<DocumentedOperation, 'text' | 'kind' | 'rootFields' | 'variables'>,
  ): Promise<Outcome> {
    const credential = credentialFor(operation.rootFields);
    let variables = operation.variables ?? {};
    try {
      variables = variablesFor(schema, parse(operation.text), known, operation.variables);
    } catch {
      // A text that does not parse is sent as written: the gateway's answer is the finding.
    }
    return operation.kind === OperationTypeNode.SUBSCRIPTION
      ? subscribe(label, operation.text, credential, variables)
      : sendOverHttp(
          label,
          operation.text,
          credential,
          variables,
          operation.kind === OperationTypeNode.QUERY,
        );
  }

  const labelOf = (op: DocumentedOperation) =>
    `${op.file}:${op.line} ${op.kind ?? 'unparsed'} ${op.name ?? op.rootFields.join(', ')}`;

  it('finds the documented operations, and accounts for every GraphQL-looking text it cannot read', () => {
    // README's and FRONTEND's examples: curl bodies, the node subscription, the graphql blocks.
    expect(DOCUMENTED.operations.length).toBeGreaterThanOrEqual(8);
    expect(
      DOCUMENTED.operations.filter((op) => op.kind === OperationTypeNode.SUBSCRIPTION).length,
    ).toBeGreaterThanOrEqual(1);
    expect(DOCUMENTED.unread.map((unread) => `${unread.file} ${unread.text}`).sort()).toEqual(
      Object.keys(NOT_OPERATIONS).sort(),
    );
  });

  it.each(DOCUMENTED.operations.map((op) => [labelOf(op), op] as const))(
    '%s is accepted, or refused where the doc says so',
    async (label, operation) => {
      const outcome = await send(label, operation);
      outcomes.push(outcome);
      if (operation.refused !== undefined) {
        expect({ label, refused: outcome.refusals.length > 0 }).toEqual({ label, refused: true });
        return;
      }
      expect({ label, refusals: outcome.refusals, failures: outcome.failures }).toEqual({
        label,
        refusals: [],
        failures: [],
      });
    },
  );

  it.each(DESCRIBED_REFUSALS.map((refusal) => [`${refusal.file} ${refusal.mentions}`, refusal] as const))(
    '%s is refused, as the doc says',
    async (label, refusal) => {
      expect(readFileSync(join(projectRoot(), refusal.file), 'utf8')).toContain(refusal.mentions);
      const { definition } = operationsOf(refusal.text)[0]!;
      const outcome = await send(label, {
        text: refusal.text,
        kind: definition.operation,
        rootFields: rootFieldsOf(definition),
        variables: undefined,
      });
      outcomes.push(outcome);
      expect({ label, refusals: outcome.refusals.map((r) => r.split(':')[0]) }).toEqual({
        label,
        refusals: ['cost limit'],
      });
    },
  );

  it('holds at least the ten panel screens, each valid against the committed schema', () => {
    expect(PANEL.length).toBeGreaterThanOrEqual(10);
    for (const fixture of PANEL) {
      expect({
        fixture: fixture.file,
        errors: validate(schema, parse(fixture.text), specifiedRules),
      }).toEqual({
        fixture: fixture.file,
        errors: [],
      });
    }
  });

  it.each(PANEL.map((fixture) => [`${fixture.file} (${fixture.name})`, fixture] as const))(
    'panel screen %s is accepted, with no error at all',
    async (label, fixture) => {
      const outcome = await send(label, { ...fixture, kind: OperationTypeNode.QUERY, variables: undefined });
      outcomes.push(outcome);
      // Each screen reads what the test made, with the credential that owns it: not even a NOT_FOUND.
      const { refusals, businessErrors, failures } = outcome;
      expect({ label, refusals, businessErrors, failures }).toEqual({
        label,
        refusals: [],
        businessErrors: [],
        failures: [],
      });
    },
  );

  /** Costs and errors of every operation sent, for the people changing the estimate. */
  async function writeReport(): Promise<void> {
    if (outcomes.length === 0) return;
    const dir = join(projectRoot(), 'test-artifacts');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'documented-operations.json'), `${JSON.stringify(outcomes, null, 2)}\n`);
    const lines = outcomes.map(
      (o) =>
        `${String(o.cost ?? '-').padStart(8)}  ${o.operation}  [${o.credential}]` +
        [...o.refusals, ...o.failures, ...o.businessErrors].map((e) => `\n           ${e}`).join(''),
    );
    const count = (pick: (o: Outcome) => string[]) => outcomes.filter((o) => pick(o).length > 0).length;
    console.log(
      `estimated cost  operation  [credential]\n${lines.join('\n')}\n` +
        `${outcomes.length} sent: ${count((o) => o.refusals)} refused, ${count((o) => o.failures)} failed, ` +
        `${count((o) => o.businessErrors)} with business errors`,
    );
  }
});
