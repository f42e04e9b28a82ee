import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../../common/errors';
import { testConfig, useSchemaDatabase } from '../../../test/support/database';
import { VENUE_CAPS, VenueService } from '../venues';
import { WebhookEndpointService } from './webhook-endpoint.service';

describe('a venue’s cap on webhook endpoints, on real Postgres', () => {
  const db = useSchemaDatabase('tickets');

  const endpoints = () => {
    const config = testConfig(db.database);
    // A receiver on this machine, as the webhook tests' own receiver is.
    return new WebhookEndpointService(db.orm.em.fork(), {
      ...config,
      webhooks: { ...config.webhooks, secretKey: randomBytes(32), allowInsecure: true },
    });
  };
  const stored = async (venueId: number, url: string): Promise<number> =>
    (
      await db.database.query('select id from tickets.webhook_endpoints where venue_id = $1 and url = $2', [
        venueId,
        url,
      ])
    ).length;

  /** Endpoints written as earlier requests left them. */
  const filled = (venueId: number, n: number, deleted: boolean) =>
    db.database.query(
      `insert into tickets.webhook_endpoints (venue_id, url, events, secret_sealed, deleted_at)
       select $1, 'http://127.0.0.1:9/old/' || i, '{ticket.ready}', '\\x00'::bytea, case when $3 then now() end
         from generate_series(1, $2::int) as i`,
      [venueId, n, deleted],
    );

  it(`refuses the endpoint past ${VENUE_CAPS.webhookEndpoints} on venueId, deleted ones holding no place, in parallel too`, async () => {
    const venueId = (await new VenueService(db.orm.em.fork()).create({ name: 'Dolma Karbala' })).id;
    await filled(venueId, VENUE_CAPS.webhookEndpoints - 2, false);
    await filled(venueId, 6, true);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => endpoints().create(venueId, `http://127.0.0.1:9/race/${i}`)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ValidationError);
    expect((refused.reason as ValidationError).fieldErrors).toEqual({
      venueId: [
        `This venue has ${VENUE_CAPS.webhookEndpoints} webhook endpoints, the most a venue may have: delete one it no longer uses first.`,
      ],
    });
    const [row] = await db.database.query(
      'select count(*)::int as n from tickets.webhook_endpoints where venue_id = $1 and deleted_at is null',
      [venueId],
    );
    expect(row?.n).toBe(VENUE_CAPS.webhookEndpoints);
    expect(await endpoints().list(venueId)).toHaveLength(VENUE_CAPS.webhookEndpoints);

    const [oldest] = await endpoints().list(venueId);
    await endpoints().delete(oldest!.id);
    await endpoints().create(venueId, 'http://127.0.0.1:9/in-its-place');
    expect(await stored(venueId, 'http://127.0.0.1:9/in-its-place')).toBe(1);
  });
});
