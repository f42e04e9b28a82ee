import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { projectRoot } from '../../common/paths';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { panelFixtures } from '../support/panel-fixtures';
import { startPlatform, type Platform } from '../support/platform';
import { run } from '../support/processes';

/**
 * What a frontend team writes on top of the generated documents: a thin client over plain fetch
 * typed by `TypedDocumentNode`, and screens that read the answers, fragments unmasked.
 */
const TYPED_USAGE = `
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { useFragment } from './gql/fragment-masking';
import {
  AuditLogPageFieldsFragmentDoc,
  BoardDocument,
  BoardTicketFragmentDoc,
  CvEditorDocument,
  HomeDocument,
  VenuePageDocument,
  type TicketStatus,
  type VenueRole,
} from './gql/graphql';

export async function request<TResult, TVariables>(
  url: string,
  token: string,
  document: TypedDocumentNode<TResult, TVariables>,
  variables: TVariables,
): Promise<TResult> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: \`Bearer \${token}\` },
    body: JSON.stringify({ query: print(document), variables }),
  });
  const body = (await response.json()) as { data?: TResult | null; errors?: { message: string }[] };
  if (body.data == null || body.errors !== undefined) throw new Error(body.errors?.[0]?.message ?? 'no data');
  return body.data;
}

export async function homeScreen(url: string, token: string): Promise<string[]> {
  const { viewer, myVenues } = await request(url, token, HomeDocument, {});
  const device: string | undefined = viewer?.sessions.find((session) => session.current)?.device;
  const roles: (VenueRole | null)[] = myVenues.map((venue) => venue.viewerRole);
  const people: string[] = myVenues.flatMap((venue) => venue.members.map((member) => member.user.name));
  return [device ?? '', ...roles.map(String), ...people];
}

export async function venueScreen(url: string, token: string, venueId: string): Promise<string[]> {
  const { venue } = await request(url, token, VenuePageDocument, { venueId });
  const history = useFragment(AuditLogPageFieldsFragmentDoc, venue.auditLog);
  const next: string | null | undefined = history.endCursor;
  const lastAttempts: (string | null)[] = venue.webhookEndpoints.flatMap((endpoint) =>
    endpoint.deliveries.map((delivery) => delivery.nextAttemptAt ?? null),
  );
  return [venue.plan?.key ?? 'no plan', next ?? '', ...history.items.map((event) => event.action), ...lastAttempts.map(String)];
}

export async function boardScreen(url: string, token: string): Promise<number> {
  const board = await request(url, token, BoardDocument, {});
  const waiting = board.waiting.items.map((item) => useFragment(BoardTicketFragmentDoc, item));
  const statuses: TicketStatus[] = waiting.map((ticket) => ticket.status);
  const readyAt: string | null | undefined = waiting[0]?.readyAt;
  return statuses.length + board.ready.total + (readyAt === undefined ? 0 : 1);
}

export async function cvEditor(url: string, token: string, cvId: string): Promise<string[]> {
  const { cv, templates } = await request(url, token, CvEditorDocument, { cvId });
  const positions: (string | null)[] = cv.sections.experience.map((item) => item.position ?? null);
  const premium: boolean[] = templates.map((template) => template.isPremium);
  return [cv.personal.fullName ?? '', ...positions.map(String), String(premium.length)];
}
`;

/** The same client making the mistakes the types are there to catch. */
const MISTAKEN_USAGE = `
import { request } from './usage';
import { VenuePageDocument, CvEditorDocument } from './gql/graphql';

export async function mistakes(url: string, token: string): Promise<void> {
  await request(url, token, VenuePageDocument, { id: '1' });
  const { cv } = await request(url, token, CvEditorDocument, { cvId: '1' });
  const count: number = cv.sections.skills;
  const name: string = cv.personal.fullName;
  void [count, name, cv.sections.hobbies];
}
`;

function compile(dir: string, files: string[]): string[] {
  const { compilerOptions } = ts.readConfigFile(join(projectRoot(), 'tsconfig.json'), ts.sys.readFile)
    .config as {
    compilerOptions: Record<string, unknown>;
  };
  const { options } = ts.convertCompilerOptionsFromJson(compilerOptions, projectRoot());
  const program = ts.createProgram(
    files.map((file) => join(dir, file)),
    // The project's strictness (noUncheckedIndexedAccess included), for a frontend's own files.
    { ...options, noEmit: true, rootDir: dir, baseUrl: undefined, paths: undefined, types: ['node'] },
  );
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where =
      diagnostic.file === undefined
        ? ''
        : `${diagnostic.file.fileName.slice(dir.length + 1)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1} `;
    return `${where}TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe('typed operations for frontend teams, generated by GraphQL Codegen', () => {
  let database: TestDatabase;
  let platform: Platform;
  let dir: string;
  const generated: Record<'introspection' | 'schema', Record<string, string>> = {
    introspection: {},
    schema: {},
  };

  /**
   * `npm run codegen`'s command, as a frontend developer runs it. It runs in its own process because
   * the CLI's `generate` loads yargs 18, which is ESM only: Node requires it, jest's sandbox cannot.
   */
  function codegen(output: string, schemaUrl: string | undefined) {
    return run(
      process.execPath,
      [join(projectRoot(), 'node_modules', '.bin', 'graphql-codegen'), '--config', 'tools/codegen.ts'],
      {
        ...process.env,
        CODEGEN_OUTPUT: `${output}/`,
        ...(schemaUrl === undefined ? {} : { GRAPHQL_SCHEMA_URL: schemaUrl }),
      },
    );
  }

  async function typesFrom(source: 'introspection' | 'schema'): Promise<Record<string, string>> {
    const output = join(dir, source, 'gql');
    const finished = await codegen(output, source === 'introspection' ? platform.gatewayUrl : undefined);
    if (finished.code !== 0)
      throw new Error(`graphql-codegen exited ${finished.code}:\n${finished.stdout}${finished.stderr}`);
    const files = (await readdir(output)).sort();
    return Object.fromEntries(
      await Promise.all(
        files.map(async (file) => [file, await readFile(join(output, file), 'utf8')] as const),
      ),
    );
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    dir = await mkdtemp(join(tmpdir(), 'nida-codegen-'));
    // The generated code imports graphql and @graphql-typed-document-node/core, as it would in an app.
    await symlink(join(projectRoot(), 'node_modules'), join(dir, 'node_modules'), 'dir');
    [generated.introspection, generated.schema] = await Promise.all([
      typesFrom('introspection'),
      typesFrom('schema'),
    ]);
    await writeFile(join(dir, 'schema', 'usage.ts'), TYPED_USAGE);
    await writeFile(join(dir, 'schema', 'mistaken-usage.ts'), MISTAKEN_USAGE);
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('generates a typed document and result type for every panel screen', () => {
    expect(Object.keys(generated.schema).sort()).toEqual([
      'fragment-masking.ts',
      'gql.ts',
      'graphql.ts',
      'index.ts',
    ]);
    const types = generated.schema['graphql.ts']!;
    for (const { name } of panelFixtures()) {
      expect(types).toContain(`export type ${name}Query = {`);
      expect(types).toContain(`export type ${name}QueryVariables = Exact<`);
      expect(types).toContain(`export const ${name}Document = `);
    }
    // Scalars as JSON carries them, not any.
    expect(types).toMatch(/lastSeenAt: string \| null/);
  });

  it('generates the very same files from the running gateway, by introspection, as from schema/', async () => {
    expect(generated.introspection).toEqual(generated.schema);
    // The URL is what was read: the same command with no gateway behind it has nothing to generate from.
    const nobody = await codegen(join(dir, 'nobody', 'gql'), 'http://127.0.0.1:9/graphql');
    expect(nobody.code).not.toBe(0);
    expect(existsSync(join(dir, 'nobody'))).toBe(false);
  });

  it('type-checks the generated code with a client and screens that use it, without a diagnostic', () => {
    expect(compile(join(dir, 'schema'), ['usage.ts'])).toEqual([]);
  });

  it('catches a wrong variable, a wrong field type, a nullable read as sure and a field not selected', () => {
    expect(compile(join(dir, 'schema'), ['mistaken-usage.ts'])).toEqual([
      expect.stringMatching(/^mistaken-usage\.ts:6 TS2353 .*'id' does not exist in type 'Exact<\{ venueId/s),
      expect.stringMatching(/^mistaken-usage\.ts:8 TS2322 .*not assignable to type 'number'/s),
      expect.stringMatching(/^mistaken-usage\.ts:9 TS2322 .*'null' is not assignable to type 'string'/s),
      expect.stringMatching(/^mistaken-usage\.ts:10 TS2339 .*'hobbies'/s),
    ]);
  });
});
