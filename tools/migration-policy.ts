/**
 * Expand, then contract (docs/ARCHITECTURE.md "Migrations while serving"): a release's migrations
 * run while the previous build still serves, so they only add what that build can ignore. What
 * takes a shape away or tightens one (a drop, a rename, NOT NULL without a default, a validated
 * constraint, a type change, a blocking index on a table that already holds rows) is a contract
 * step: it ships a release after the last build that read the old shape, marked in its file with
 * `@contract` and listed in CONTRACT_STEPS with that release.
 */

/** One statement of a migration's `up()` that the previous build may trip over. */
export interface ContractStatement {
  rule: string;
  statement: string;
}

/** A contract step allowed to ship: the release from which no running build reads the old shape. */
export interface ContractStep {
  /** `<schema folder>/<migration name>`, e.g. `tickets/Migration20270101000000DropOldColumn`. */
  migration: string;
  /** The release (tag or commit) after which no build reads what the step takes away. */
  stoppedReadingIn: string;
  why: string;
}

/** Contract steps, each also marked `@contract` in its file. None has shipped yet. */
export const CONTRACT_STEPS: readonly ContractStep[] = [];

/**
 * Migrations that shipped before this policy and hold a statement it now flags; each has long run
 * everywhere, so it is never run against a serving older build again. The list is closed.
 */
export const GRANDFATHERED: Readonly<Record<string, string>> = {
  'cv/Migration20261122140000CvPayloadExtras':
    'adds the validated check cvs_photo_complete to cv.cvs; every build that ever wrote a photo wrote its type with it, so no write of the build before failed on it',
  'cv/Migration20261124100000AccountOwner':
    'drops and re-creates accounts_email_unique without CONCURRENTLY, loosening it to operator accounts; cv.accounts was small when it shipped',
  'tickets/Migration20261123100000OutboxRelayedAt':
    'creates outbox_unrelayed_index on tickets.outbox without CONCURRENTLY (a partial index of the few unrelayed rows); the outbox was small when it shipped',
};

const RULES: readonly { rule: string; pattern: RegExp }[] = [
  {
    rule: 'drops a table, column, schema, index, constraint, type or view',
    pattern: /\bdrop\s+(table|column|schema|index|constraint|type|view|materialized\s+view)\b[^;'`]*/gi,
  },
  { rule: 'renames', pattern: /\brename\b[^;'`]*/gi },
  { rule: 'sets NOT NULL on an existing column', pattern: /\bset\s+not\s+null\b/gi },
  { rule: 'drops a default the previous build relies on', pattern: /\bdrop\s+default\b/gi },
  { rule: 'changes a column type', pattern: /\balter\s+column\s+"?\w+"?\s+(set\s+data\s+)?type\b[^;'`]*/gi },
  {
    rule: 'adds a NOT NULL column without a default (the previous build inserts without it)',
    pattern:
      /\badd\s+column\s+(if\s+not\s+exists\s+)?"?\w+"?\s+[^,;'`]*?\bnot\s+null\b(?![^,;'`]*\bdefault\b)[^,;'`]*/gi,
  },
  {
    rule: 'adds a validated constraint (add it NOT VALID, validate it in a later step)',
    pattern: /\badd\s+constraint\b(?![^;'`]*\bnot\s+valid\b)[^;'`]*/gi,
  },
];

/** `"schema"."table"` → `schema.table`, to compare names however they are quoted. */
const plain = (name: string) => name.replace(/"/g, '').toLowerCase();

/** The text of a migration's `up()`: `down()` undoes and may drop whatever it likes. */
export function upBody(source: string): string {
  const up = /\bup\s*\(\s*\)/.exec(source);
  if (up === null) throw new Error('a migration without an up() method');
  const rest = source.slice(up.index);
  const down = /\bdown\s*\(\s*\)/.exec(rest);
  return down === null ? rest : rest.slice(0, down.index);
}

/** Every statement of `up()` that contracts a shape the previous build may still use. */
export function contractStatements(source: string): ContractStatement[] {
  const up = upBody(source);
  const found: ContractStatement[] = [];
  for (const { rule, pattern } of RULES) {
    for (const match of up.matchAll(pattern)) found.push({ rule, statement: match[0].trim() });
  }
  // An index on a table this migration creates is built on no rows; on any other it blocks writes
  // to that table while it builds, unless built CONCURRENTLY.
  const created = new Set(
    [...up.matchAll(/\bcreate\s+table\s+(?:if\s+not\s+exists\s+)?("?\w+"?\."?\w+"?)/gi)].map((m) =>
      plain(m[1]!),
    ),
  );
  for (const match of up.matchAll(
    /\bcreate\s+(unique\s+)?index\s+(?!concurrently\b)[^;'`]*?\bon\s+("?\w+"?\."?\w+"?)/gi,
  )) {
    if (!created.has(plain(match[2]!))) {
      found.push({
        rule: 'builds an index on an existing table without CONCURRENTLY',
        statement: match[0].trim(),
      });
    }
  }
  return found;
}

/** Whether the migration's file marks it as a contract step. */
export function markedAsContract(source: string): boolean {
  return /@contract\b/.test(source);
}
