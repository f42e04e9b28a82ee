import type { Client } from 'pg';

/** The schemas the subgraphs own; every row a request could write is in one of them. */
const SCHEMAS = ['tickets', 'cv', 'billing'];

/**
 * `last_used_at` of a key is written for a refused request too, at most once a minute per key
 * (common/api-keys.ts), so a client's key shows it was used: the one write a refusal may make.
 * The key tables are compared without that column; every other table by its rows' versions.
 */
const KEY_TABLES = new Set(['tickets.api_keys', 'cv.account_api_keys']);

/** Each table's row count and row versions, from one statement. */
export type Fingerprint = Map<string, string>;

export interface TableFingerprint {
  take(): Promise<Fingerprint>;
}

/**
 * A cheap check that nothing was written: per table `count(*)` and `sum(xmin)`. Any insert, update
 * or delete that commits changes one of them (an update gives the row a new xmin even when it
 * writes the same values); a rolled-back transaction changes neither.
 */
export async function tableFingerprint(client: Client): Promise<TableFingerprint> {
  const { rows } = await client.query<{ name: string }>(
    `select table_schema || '.' || table_name as name from information_schema.tables
      where table_schema = any($1) and table_type = 'BASE TABLE' and table_name <> 'mikro_orm_migrations'
      order by 1`,
    [SCHEMAS],
  );
  const parts = rows.map(({ name }) => {
    const quoted = name
      .split('.')
      .map((part) => `"${part}"`)
      .join('.');
    const versions = KEY_TABLES.has(name)
      ? `md5(coalesce(string_agg((to_jsonb(t) - 'last_used_at')::text, ',' order by t.id), ''))`
      : `coalesce(sum(t.xmin::text::bigint), 0)::text`;
    return `select '${name}' as name, count(*)::text || ':' || ${versions} as print from ${quoted} t`;
  });
  const statement = parts.join(' union all ');
  return {
    take: async () => {
      const result = await client.query<{ name: string; print: string }>(statement);
      return new Map(result.rows.map((row) => [row.name, row.print]));
    },
  };
}

/** The tables whose rows differ between two fingerprints. */
export function changedTables(before: Fingerprint, after: Fingerprint): string[] {
  return [...after.keys()].filter((name) => before.get(name) !== after.get(name));
}
