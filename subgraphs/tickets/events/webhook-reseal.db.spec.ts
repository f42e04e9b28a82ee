import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { testConfig, useSchemaDatabase } from '../../../test/support/database';
import { admin } from '../../../test/support/platform';
import { VenueService } from '../venues';
import { DeliveryRepository } from './delivery.repository';
import { seal, unseal } from './secret-box';
import { WebhookEndpointService } from './webhook-endpoint.service';

describe('resealing webhook secrets under a new WEBHOOK_SECRET_KEY, on real Postgres', () => {
  const db = useSchemaDatabase('tickets');
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  const rows = () => new DeliveryRepository(db.orm.em.fork());
  /** The service as an operator runs it in roll 2: the new key seals, the old one still opens. */
  const rolling = () => {
    const config = testConfig(db.database);
    return new WebhookEndpointService(db.orm.em.fork(), {
      ...config,
      webhooks: { ...config.webhooks, secretKey: newKey, secondarySecretKey: oldKey },
    });
  };
  const sealedOf = async (id: number) =>
    (await db.database.query('select secret_sealed from tickets.webhook_endpoints where id = $1', [id]))[0]!
      .secret_sealed as Buffer;

  it('moves every secret under the old key to the new one in batches, deleted endpoints too, and is idempotent', async () => {
    const venueId = (await new VenueService(db.orm.em.fork()).create({ name: 'Baghdad Bites' })).id;
    const endpoint = async (key: Buffer, secret: string) =>
      Number(
        (await rows().createEndpoint(venueId, 'https://hooks.example/a', ['ticket.ready'], seal(key, secret)))
          .id,
      );
    const underOld = [await endpoint(oldKey, 'whsec_one'), await endpoint(oldKey, 'whsec_two')];
    const underNew = await endpoint(newKey, 'whsec_three');
    const deleted = await endpoint(oldKey, 'whsec_gone');
    await rows().deleteEndpoint(deleted);
    const stranger = await endpoint(randomBytes(32), 'whsec_lost');

    expect(await rolling().resealSecrets(2)).toEqual({
      checked: 5,
      resealed: 3,
      current: 1,
      changedMeanwhile: 0,
      unopenable: [stranger],
    });
    const opened = await Promise.all(
      [...underOld, underNew, deleted].map(async (id) => unseal(newKey, await sealedOf(id))),
    );
    expect(opened).toEqual(['whsec_one', 'whsec_two', 'whsec_three', 'whsec_gone']);

    expect(await rolling().resealSecrets()).toEqual({
      checked: 5,
      resealed: 0,
      current: 4,
      changedMeanwhile: 0,
      unopenable: [stranger],
    });
  });

  it('writes nothing over a secret rotated between its read and its reseal', async () => {
    const venueId = (await new VenueService(db.orm.em.fork()).create({ name: 'Mosul Grill' })).id;
    const id = Number(
      (
        await rows().createEndpoint(
          venueId,
          'https://hooks.example/b',
          ['ticket.ready'],
          seal(oldKey, 'whsec_a'),
        )
      ).id,
    );
    const read = await sealedOf(id);
    const rotated = seal(newKey, 'whsec_rotated');
    expect(await rows().replaceSecret(id, rotated)).toBe(true);
    expect(await rows().resealSecret(id, read, seal(newKey, 'whsec_a'))).toBe(false);
    expect(unseal(newKey, await sealedOf(id))).toBe('whsec_rotated');
  });

  it('as `webhook reseal`, refuses to run without the secondary key and exits 1 naming a secret neither key opens', async () => {
    const config = testConfig(db.database);
    await expect(admin(config, 'webhook', 'reseal')).rejects.toThrow(
      /exited 2: webhook reseal: WEBHOOK_SECRET_KEY_SECONDARY is not set/,
    );
    const venueId = (await new VenueService(db.orm.em.fork()).create({ name: 'Basra Fish' })).id;
    const lost = Number(
      (
        await rows().createEndpoint(
          venueId,
          'https://hooks.example/c',
          ['ticket.ready'],
          seal(randomBytes(32), 'x'),
        )
      ).id,
    );
    const roll2 = {
      ...config,
      webhooks: { ...config.webhooks, secretKey: newKey, secondarySecretKey: oldKey },
    };
    await expect(admin(roll2, 'webhook', 'reseal')).rejects.toThrow(
      new RegExp(
        `exited 1: webhook reseal: neither key opens the secrets of endpoints (\\d+, )*${lost}; keep`,
      ),
    );
  });
});
