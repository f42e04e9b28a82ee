import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';
import {
  CONTRACT_STEPS,
  contractStatements,
  GRANDFATHERED,
  markedAsContract,
  upBody,
} from './migration-policy';

const MIGRATIONS = join(projectRoot(), 'migrations');

/** Every migration file as `<schema folder>/<name>` with its source. */
function migrations(): { name: string; source: string }[] {
  return readdirSync(MIGRATIONS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((folder) =>
      readdirSync(join(MIGRATIONS, folder.name))
        .filter((file) => /^Migration\d{14}\w+\.ts$/.test(file))
        .map((file) => ({
          name: `${folder.name}/${file.replace(/\.ts$/, '')}`,
          source: readFileSync(join(MIGRATIONS, folder.name, file), 'utf8'),
        })),
    );
}

const migration = (up: string, down = 'this.addSql(\'drop table "t"."x";\');') =>
  `export class M extends Migration {\n  override up(): void {\n    ${up}\n  }\n  override down(): void {\n    ${down}\n  }\n}`;

describe('the expand-then-contract rule for migrations', () => {
  it('finds the migrations to check', () => {
    const names = migrations().map((m) => m.name);
    expect(names.length).toBeGreaterThan(10);
    expect(names).toContain('tickets/Migration20261126100000TraceContext');
  });

  it('lets a release ship only expanding migrations unless a step is marked and listed as a contract', () => {
    const offending = migrations().flatMap(({ name, source }) => {
      const statements = contractStatements(source);
      if (statements.length === 0 || name in GRANDFATHERED) return [];
      const listed = CONTRACT_STEPS.some((step) => step.migration === name);
      if (listed && markedAsContract(source)) return [];
      return [{ name, marked: markedAsContract(source), listed, statements }];
    });
    expect(offending).toEqual([]);
  });

  it('keeps its lists true: each contract step is marked in its file, each grandfathered one still contracts', () => {
    const byName = new Map(migrations().map((m) => [m.name, m.source]));
    for (const step of CONTRACT_STEPS) {
      expect([step.migration, byName.has(step.migration)]).toEqual([step.migration, true]);
      expect([step.migration, markedAsContract(byName.get(step.migration)!)]).toEqual([step.migration, true]);
      expect(step.stoppedReadingIn).not.toBe('');
    }
    for (const name of Object.keys(GRANDFATHERED)) {
      const source = byName.get(name);
      expect([name, source === undefined ? 'missing' : contractStatements(source).length > 0]).toEqual([
        name,
        true,
      ]);
    }
  });

  it('flags what the previous build would trip over', () => {
    const flagged = (sql: string) =>
      contractStatements(migration(`this.addSql('${sql}');`)).map((s) => s.rule);
    expect(flagged('alter table "t"."x" drop column "y";')).toEqual([
      'drops a table, column, schema, index, constraint, type or view',
    ]);
    expect(flagged('drop table "t"."old";')).toHaveLength(1);
    expect(flagged('alter table "t"."x" rename column "a" to "b";')).toEqual(['renames']);
    expect(flagged('alter table "t"."x" rename to "y";')).toEqual(['renames']);
    expect(flagged('alter table "t"."x" alter column "a" set not null;')).toEqual([
      'sets NOT NULL on an existing column',
    ]);
    expect(flagged('alter table "t"."x" alter column "a" type bigint;')).toEqual(['changes a column type']);
    expect(flagged('alter table "t"."x" add column "a" text not null;')).toEqual([
      'adds a NOT NULL column without a default (the previous build inserts without it)',
    ]);
    expect(flagged('alter table "t"."x" add constraint "c" check ("a" > 0);')).toEqual([
      'adds a validated constraint (add it NOT VALID, validate it in a later step)',
    ]);
    expect(flagged('create index "i" on "t"."x" ("a");')).toEqual([
      'builds an index on an existing table without CONCURRENTLY',
    ]);
  });

  it('lets expanding statements through, and ignores what down() undoes', () => {
    for (const sql of [
      'create table "t"."n" ("id" bigserial primary key, "a" text not null);',
      'alter table "t"."x" add column "a" text null;',
      'alter table "t"."x" add column "b" boolean not null default false;',
      'create index concurrently "i" on "t"."x" ("a");',
      'alter table "t"."x" add constraint "c" check ("a" > 0) not valid;',
    ]) {
      expect([sql, contractStatements(migration(`this.addSql('${sql}');`))]).toEqual([sql, []]);
    }
    const fresh = migration(
      `this.addSql('create table "t"."n" ("id" bigserial primary key);');
    this.addSql('create unique index "n_id" on "t"."n" ("id");');`,
    );
    expect(contractStatements(fresh)).toEqual([]);
    expect(upBody(fresh)).not.toContain('drop table');
  });

  it('takes a step as a contract only when its file says so', () => {
    expect(markedAsContract(`/** @contract after v2: no build reads "a" */\n${migration('')}`)).toBe(true);
    expect(markedAsContract(migration('this.addSql(\'alter table "t"."x" drop column "a";\');'))).toBe(false);
  });
});
