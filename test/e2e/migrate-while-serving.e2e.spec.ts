import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { projectRoot } from '../../common/paths';
import { quoteIdentifier } from '../../common/postgres';
import { startStack, type RunningStack } from '../../tools/stack';
import { DEMO_CV_KEY, DEMO_TICKET_KEY } from '../../tools/database-setup';
import { adminQuery, serverUrl, TEST_DATABASE_PREFIX, testRun } from '../support/database';
import { run } from '../support/processes';
import { waitUntil } from '../support/wait';

/** The build before the latest migrations: the parent of the last commit that added one. */
function previousRevision(root: string): { revision: string } | { skip: string } {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', root, ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }).trim();
    const adding = git('log', '-1', '--format=%H', '--diff-filter=A', '--', 'migrations/');
    if (adding === '') return { skip: 'no commit in this history adds a migration' };
    return { revision: git('rev-parse', `${adding}^`) };
  } catch (error) {
    return {
      skip: `no git history here (${(error as Error).message.split('\n')[0]}), so no previous build to run`,
    };
  }
}

const ROOT = projectRoot();
const previous = previousRevision(ROOT);
const suite = 'revision' in previous ? describe : describe.skip;
if ('skip' in previous) process.stdout.write(`[migrate-while-serving] skipped: ${previous.skip}\n`);

/** Migration names per schema folder of a checkout, as its migrations/ directory lists them. */
function migrationsOf(root: string): Record<string, string[]> {
  const dir = join(root, 'migrations');
  return Object.fromEntries(
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => [
        entry.name,
        readdirSync(join(dir, entry.name))
          .filter((file) => /^Migration\d{14}\w+\.ts$/.test(file))
          .map((file) => file.replace(/\.ts$/, ''))
          .sort(),
      ]),
  );
}

/**
 * The previous build, checked out with `git archive` and compiled once per revision (kept in the
 * temporary directory, so a second run starts at once); node_modules is this checkout's.
 */
async function previousBuild(revision: string): Promise<string> {
  const dir = join(tmpdir(), `nida-previous-build-${revision.slice(0, 12)}`);
  if (existsSync(join(dir, 'dist', '.complete'))) {
    // The checkout that compiled it may be gone since, and its node_modules with it.
    rmSync(join(dir, 'node_modules'), { force: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    return dir;
  }
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const archived = await run(
    'sh',
    ['-c', `git -C "${ROOT}" archive ${revision} | tar -x -C "${building}"`],
    process.env,
    60_000,
  );
  if (archived.code !== 0) throw new Error(`git archive ${revision} failed: ${archived.stderr}`);
  symlinkSync(join(ROOT, 'node_modules'), join(building, 'node_modules'));
  // The explorer bundle needs an extra bundling step and only development gateways serve it. The
  // revision was type checked when it was made: compiling is emitting only (--noCheck), in half the time.
  const compiled = await run(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(building, 'tsconfig.build.json'),
      '--noCheck',
    ],
    process.env,
    400_000,
  );
  if (compiled.code !== 0)
    throw new Error(`the previous build did not compile:\n${compiled.stdout}${compiled.stderr}`);
  writeFileSync(join(building, 'dist', '.complete'), revision);
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  return dir;
}

interface Outcome {
  what: string;
  status: number;
  body: string;
}

suite(
  `migrations applied while the previous build serves${'skip' in previous ? ` (skipped: ${previous.skip})` : ''}`,
  () => {
    const revision = 'revision' in previous ? previous.revision : '';
    const name = `${TEST_DATABASE_PREFIX}${testRun()}_serving_${Date.now().toString(36)}`;
    const databaseUrl = serverUrl(name);
    let oldRoot: string;
    let stack: RunningStack | undefined;
    const outcomes: Outcome[] = [];
    let running = true;

    const env: NodeJS.ProcessEnv = {
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: `test:${name}:`,
      LOG_LEVEL: 'warn',
      TICKETS_RATE_LIMIT: '1000000',
      CV_RATE_LIMIT: '1000000',
      PUBLIC_RATE_LIMIT: '1000000',
    };

    const script = (root: string, relative: string) => join(root, 'dist', 'tools', relative);

    async function tool(root: string, relative: string): Promise<string> {
      const finished = await run(
        process.execPath,
        [script(root, relative)],
        { ...process.env, ...env },
        120_000,
      );
      if (finished.code !== 0)
        throw new Error(`${relative} of ${root} exited ${finished.code}: ${finished.stderr}`);
      return finished.stdout;
    }

    beforeAll(async () => {
      oldRoot = await previousBuild(revision);
      await tool(oldRoot, 'migrate.js');
      await tool(oldRoot, 'seed.js');
      // The previous build's own supervisor; it seeds its demo venue, key, CV account and CV.
      stack = await startStack(env, 120_000, oldRoot);
    }, 600_000);

    afterAll(async () => {
      running = false;
      await stack?.stop();
      await adminQuery((client) =>
        client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`),
      );
    });

    const call = async (
      what: string,
      url: string,
      init: RequestInit & { headers: Record<string, string> },
    ) => {
      const response = await fetch(url, init);
      const outcome = { what, status: response.status, body: await response.text() };
      outcomes.push(outcome);
      return outcome;
    };

    /** A POS's create, ready and read; a frontend's list; a CV integration's read of its CV. */
    async function worker(n: number, cvId: string): Promise<void> {
      const rest = stack!.restUrl;
      const tickets = { authorization: `Bearer ${DEMO_TICKET_KEY}`, 'content-type': 'application/json' };
      for (let i = 0; running; i += 1) {
        const created = await call('REST create', `${rest}/tickets`, {
          method: 'POST',
          headers: { ...tickets, 'idempotency-key': `serving-${n}-${i}-${Date.now()}` },
          body: JSON.stringify({ external_id: `serving-${n}-${i}-${Date.now()}` }),
        });
        if (created.status === 201) {
          const id = (JSON.parse(created.body) as { id: number }).id;
          await call('REST ready', `${rest}/tickets/${id}/ready`, { method: 'POST', headers: tickets });
          await call('REST read', `${rest}/tickets/${id}`, { method: 'GET', headers: tickets });
        }
        await call('GraphQL list', stack!.gatewayUrl, {
          method: 'POST',
          headers: tickets,
          body: JSON.stringify({ query: '{ tickets(perPage: 5) { items { id status number } total } }' }),
        });
        await call('REST CV read', `${rest}/cvs/${cvId}`, {
          method: 'GET',
          headers: { 'x-api-key': DEMO_CV_KEY, accept: 'application/json' },
        });
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    }

    it(`applies the current build's new migrations under the build of ${revision.slice(0, 12)} with no failed request`, async () => {
      const cvs = await fetch(`${stack!.restUrl}/cvs`, { headers: { 'x-api-key': DEMO_CV_KEY } });
      const cvId = String(((await cvs.json()) as { data: { id: string }[] }).data[0]!.id);
      const load = Promise.all([worker(1, cvId), worker(2, cvId)]);
      await waitUntil(() => outcomes.length >= 20, 60_000, 'the load under way');

      const applied = JSON.parse(await tool(ROOT, 'migrate.js')) as { applied: Record<string, string[]> };
      const before = outcomes.length;
      await waitUntil(() => outcomes.length >= before + 40, 60_000, 'the load going on after the migration');
      running = false;
      await load;

      // What the current checkout has that the previous one did not is what was applied, no more.
      const now = migrationsOf(ROOT);
      const then = migrationsOf(oldRoot);
      const expected = Object.fromEntries(
        Object.entries(now).map(([schema, names]) => [
          schema,
          names.filter((m) => !(then[schema] ?? []).includes(m)),
        ]),
      );
      expect(Object.values(expected).flat().length).toBeGreaterThan(0);
      expect(Object.fromEntries(Object.keys(expected).map((s) => [s, applied.applied[s] ?? []]))).toEqual(
        expected,
      );
      const database = new Client({ connectionString: databaseUrl });
      await database.connect();
      const recorded: Record<string, string[]> = {};
      try {
        for (const schema of Object.keys(now)) {
          const result = await database.query<{ name: string }>(
            `select name from ${quoteIdentifier(schema)}.mikro_orm_migrations order by name`,
          );
          recorded[schema] = result.rows.map((row) => row.name.replace(/\.[jt]s$/, ''));
        }
      } finally {
        await database.end();
      }
      expect(recorded).toEqual(now);

      const tally: Record<string, number> = {};
      for (const o of outcomes) tally[`${o.what} ${o.status}`] = (tally[`${o.what} ${o.status}`] ?? 0) + 1;
      process.stdout.write(
        `[migrate-while-serving] ${JSON.stringify({ revision, applied: expected, answers: tally })}\n`,
      );
      const failed = outcomes.filter(
        (o) =>
          ![200, 201].includes(o.status) ||
          (o.what.startsWith('GraphQL') && (JSON.parse(o.body) as { errors?: unknown }).errors !== undefined),
      );
      expect(failed.map((o) => `${o.what} ${o.status} ${o.body.slice(0, 300)}`)).toEqual([]);
    }, 170_000);
  },
);
