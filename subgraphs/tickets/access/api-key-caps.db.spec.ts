import 'reflect-metadata';
import { ValidationError } from '../../../common/errors';
import { useSchemaDatabase } from '../../../test/support/database';
import { VENUE_CAPS, VenueService } from '../venues';
import { ApiKeyService } from './api-key.service';

describe('a venue’s cap on API keys, on real Postgres', () => {
  const db = useSchemaDatabase('tickets');

  const keysNamed = async (name: string): Promise<number> => {
    const [row] = await db.orm.em
      .fork()
      .execute<{ n: string }[]>('select count(*) as n from tickets.api_keys where name = ?', [name]);
    return Number(row?.n ?? 0);
  };

  /** Keys written as earlier requests left them, across the venue's branches. */
  const keys = (branchId: number, n: number, kind: 'integration' | 'board', revoked: boolean) =>
    db.database.query(
      `insert into tickets.api_keys (branch_id, name, scopes, prefix, key_hash, kind, paired_at, revoked_at)
       select $1, 'Key ' || i, '{tickets:read,tickets:write}', 'tk_' || i, sha256((random()::text || i)::bytea), $3,
              case when $3 = 'board' then now() end, case when $4 then now() end
         from generate_series(1, $2::int) as i`,
      [branchId, n, kind, revoked],
    );

  async function venue(): Promise<{ first: number; second: number }> {
    const venues = new VenueService(db.orm.em.fork());
    const { id } = await venues.create({ name: 'Kubba Duhok' });
    return {
      first: (await venues.createBranch(id, 'Front')).id,
      second: (await venues.createBranch(id, 'Back')).id,
    };
  }

  it(`refuses the key past ${VENUE_CAPS.apiKeys} not revoked on branchId; revoked keys and board devices hold no place`, async () => {
    const { first, second } = await venue();
    await keys(first, VENUE_CAPS.apiKeys - 1, 'integration', false);
    await keys(second, 5, 'integration', true);
    await keys(second, 5, 'board', false);
    await expect(new ApiKeyService(db.orm.em.fork()).issue(second, 'POS')).resolves.toMatchObject({
      name: 'POS',
    });

    const refused = await new ApiKeyService(db.orm.em.fork())
      .issue(first, 'Delivery app')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).fieldErrors).toEqual({
      branchId: [
        `This venue has ${VENUE_CAPS.apiKeys} active API keys, the most a venue may have: revoke one it no longer uses first.`,
      ],
    });
    expect(await keysNamed('Delivery app')).toBe(0);

    await db.database.query(
      `update tickets.api_keys set revoked_at = now() where branch_id = $1 and name = 'POS'`,
      [second],
    );
    await expect(new ApiKeyService(db.orm.em.fork()).issue(first, 'Delivery app')).resolves.toBeDefined();
  });

  it('lets 10 parallel issues take only the places left', async () => {
    const { first } = await venue();
    await keys(first, VENUE_CAPS.apiKeys - 4, 'integration', false);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => new ApiKeyService(db.orm.em.fork()).issue(first, 'Race')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ValidationError);
    }
    expect(await keysNamed('Race')).toBe(4);
  });
});
