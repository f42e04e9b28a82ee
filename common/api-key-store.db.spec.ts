import 'reflect-metadata';
import { BigIntType, Entity, Property } from '@mikro-orm/core';
import { createTestDatabase, statementsOf, testConfig, type TestDatabase } from '../test/support/database';
import { ApiKeyColumns, ApiKeyStore, type ApiKeyTable } from './api-key-store';
import { hashApiKey, newApiKey } from './api-keys';
import { openSchema, type MikroORM } from './database';

/** A key table of the spec's own, with an owner as each subgraph's has one. */
@Entity({ tableName: 'probe_api_keys' })
class ProbeKey extends ApiKeyColumns {
  @Property({ type: new BigIntType('number') })
  ownerId!: number;
}

const PROBE_KEYS: ApiKeyTable<ProbeKey> = { entity: ProbeKey, table: 'billing.probe_api_keys' };

describe('ApiKeyStore, the key table every subgraph reaches the same way', () => {
  let database: TestDatabase;
  let orm: MikroORM;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openSchema(testConfig(database), {
      schema: 'billing',
      entities: [ProbeKey],
      migrations: () => Promise.resolve([]),
    });
    await orm.em.getConnection().execute(
      `create table billing.probe_owners (id bigint primary key, name text not null);
       insert into billing.probe_owners values (7, 'owner seven');
       create table billing.probe_api_keys (
         id bigserial primary key, owner_id bigint not null references billing.probe_owners (id),
         name text not null, prefix text not null, key_hash bytea not null unique,
         last_used_at timestamptz, revoked_at timestamptz, created_at timestamptz not null default now())`,
    );
  });

  afterAll(async () => {
    await orm.close(true);
    await database.drop();
  });

  async function issued(name: string): Promise<{ key: string; apiKey: ProbeKey }> {
    const em = orm.em.fork();
    const { key, prefix, hash } = newApiKey('pk_');
    const apiKey = em.create(ProbeKey, { ownerId: 7, name, prefix, keyHash: hash });
    await em.flush();
    return { key, apiKey };
  }

  const store = () => new ApiKeyStore(orm.em.fork(), PROBE_KEYS);
  const withOwner = {
    columns: 'k.id, o.name as owner',
    join: 'join billing.probe_owners o on o.id = k.owner_id',
  };

  it('finds a live key by its hash with what the look-up joins, in one statement; nothing for another key', async () => {
    const { key, apiKey } = await issued('pos');
    const keys = store();
    let found: unknown;
    const statements = await statementsOf(orm.em, async () => {
      found = await keys.findLive(hashApiKey(key), withOwner);
    });
    expect(found).toEqual({ id: String(apiKey.id), owner: 'owner seven' });
    expect(statements).toHaveLength(1);
    expect(await store().findLive(hashApiKey(`${key}x`), withOwner)).toBeNull();
  });

  it('revokes once: the key is not found from then on, and a second revocation keeps the first time', async () => {
    const { key, apiKey } = await issued('till');
    const keys = store();
    const loaded = (await keys.find(apiKey.id))!;
    expect(await keys.revoke(loaded)).toBe(true);
    const first = loaded.revokedAt;
    expect(first).toBeInstanceOf(Date);
    expect(await store().findLive(hashApiKey(key), withOwner)).toBeNull();
    const again = store();
    const reloaded = (await again.find(apiKey.id))!;
    expect(await again.revoke(reloaded)).toBe(false);
    expect(reloaded.revokedAt?.getTime()).toBe(first?.getTime());
  });

  it('records a use at most once a minute per key and process', async () => {
    const { apiKey } = await issued('kiosk');
    const keys = store();
    const writes = await statementsOf(orm.em, async () => {
      await keys.touch(apiKey.id);
      await keys.touch(apiKey.id);
    });
    expect(writes.filter((sql) => sql.startsWith('update'))).toHaveLength(1);
    expect((await store().find(apiKey.id))?.lastUsedAt).toBeInstanceOf(Date);
  });
});
