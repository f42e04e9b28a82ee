import { createTestDatabase, type TestDatabase } from '../support/database';
import { distScript, run } from '../support/processes';

describe('the admin CLI', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'info' };
  });

  afterAll(() => database.drop());

  const admin = (...args: string[]) => run(process.execPath, [distScript('tools/admin.js'), ...args], env);

  it('`npm run -s admin -- plans list` prints exactly one JSON value and exits 0', async () => {
    const result = await run('npm', ['run', '-s', 'admin', '--', 'plans', 'list'], env);
    expect(result.code).toBe(0);
    const plans = JSON.parse(result.stdout) as { key: string }[];
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(plans.map((p) => p.key)).toEqual(['free', 'pro', 'business', 'starter', 'growth', 'enterprise']);
  });

  it('filters by product', async () => {
    const result = await admin('plans', 'list', '--product', 'tickets');
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { key: string }[]).map((p) => p.key)).toEqual([
      'starter',
      'growth',
      'enterprise',
    ]);
  });

  it('refuses a value outside the choices, naming the flag and the value', async () => {
    const result = await admin('plans', 'list', '--product', 'cars');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--product must be one of cv, tickets (got "cars")');
  });

  it('refuses an unknown flag, listing the known ones', async () => {
    const result = await admin('plans', 'list', '--colour', 'red');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown flag --colour (known: --product)');
  });

  it('refuses an unknown verb, listing the noun’s verbs', async () => {
    const result = await admin('plans', 'delete');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('plans takes: list');
  });

  it('prints usage on stderr and exits non-zero when given nothing', async () => {
    const result = await admin();
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('usage: npm run -s admin -- <noun> <verb>');
  });

  it('lists its commands as JSON with `help`', async () => {
    const result = await admin('help');
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { command: string }[]).map((c) => c.command)).toContain(
      'plans list',
    );
  });

  it('fails with a message, not a stack, when Postgres is unreachable', async () => {
    const result = await run(process.execPath, [distScript('tools/admin.js'), 'plans', 'list'], {
      ...env,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nida',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Cannot reach PostgreSQL at postgres://postgres@127.0.0.1:1/nida');
  });
});
