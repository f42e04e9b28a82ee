import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { useSchemaDatabase } from '../../../test/support/database';
import { VenueService } from '../venues';
import { DeliveryRepository } from './delivery.repository';

describe('DeliveryRepository on real Postgres', () => {
  const db = useSchemaDatabase('tickets');

  const deliveries = () => new DeliveryRepository(db.orm.em.fork());
  const sealed = Buffer.from('not a real sealed secret');

  async function newVenue(): Promise<number> {
    return (await new VenueService(db.orm.em.fork()).create({ name: 'Kebab Erbil' })).id;
  }

  async function deliveryOf(event = 'ticket.ready'): Promise<{ id: number; endpointId: number }> {
    const venueId = await newVenue();
    const endpoint = await deliveries().createEndpoint(venueId, 'https://hooks.example/a', [event], sealed);
    const [id] = await deliveries().insertWebhookDeliveries(randomUUID(), event, '{}', venueId);
    return { id: id!, endpointId: Number(endpoint.id) };
  }

  it('writes one delivery per live endpoint subscribed to the event, once however often it is relayed', async () => {
    const venueId = await newVenue();
    const ready = await deliveries().createEndpoint(
      venueId,
      'https://hooks.example/ready',
      ['ticket.ready'],
      sealed,
    );
    await deliveries().createEndpoint(venueId, 'https://hooks.example/created', ['ticket.created'], sealed);
    const gone = await deliveries().createEndpoint(
      venueId,
      'https://hooks.example/gone',
      ['ticket.ready'],
      sealed,
    );
    await deliveries().deleteEndpoint(Number(gone.id));
    const eventId = randomUUID();

    const written = await deliveries().insertWebhookDeliveries(eventId, 'ticket.ready', '{}', venueId);
    expect(written).toHaveLength(1);
    expect(await deliveries().insertWebhookDeliveries(eventId, 'ticket.ready', '{}', venueId)).toEqual([]);
    expect((await deliveries().deliveriesOf(Number(ready.id))).map((d) => Number(d.id))).toEqual(written);
  });

  it('hands the trace a delivery continues from its insert to the worker that claims it', async () => {
    const venueId = await newVenue();
    await deliveries().createEndpoint(venueId, 'https://hooks.example/a', ['ticket.ready'], sealed);
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const [traced] = await deliveries().insertWebhookDeliveries(
      randomUUID(),
      'ticket.ready',
      '{}',
      venueId,
      traceparent,
    );
    const [untraced] = await deliveries().insertWebhookDeliveries(
      randomUUID(),
      'ticket.ready',
      '{}',
      venueId,
    );
    expect((await deliveries().claimWebhook(traced!, 60))?.traceparent).toBe(traceparent);
    expect((await deliveries().claimWebhook(untraced!, 60))?.traceparent).toBeNull();
  });

  it('lets one claim of a delivery win until its attempt is recorded, then claims it again when due', async () => {
    const { id, endpointId } = await deliveryOf();
    const claims = await Promise.all([deliveries().claimWebhook(id, 60), deliveries().claimWebhook(id, 60)]);
    expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
    expect(claims.find((c) => c !== undefined)?.url).toBe('https://hooks.example/a');

    await deliveries().recordWebhookAttempt({
      deliveryId: String(id),
      startedAt: new Date(),
      durationMs: 12,
      statusCode: 500,
      error: null,
      status: 'pending',
      attempts: 1,
      nextAt: new Date(Date.now() - 1_000),
    });
    expect((await deliveries().claimWebhook(id, 60))?.attempts).toBe(1);
    const [logged] = await deliveries().deliveriesOf(endpointId);
    expect(logged?.attempt_log.map((a) => [a.attempt, a.status_code])).toEqual([[1, 500]]);
  });

  it('frees a claim that ran out and lists the row as overdue', async () => {
    const { id } = await deliveryOf();
    expect(await deliveries().claimWebhook(id, 0)).toBeDefined();
    await db.database.query(
      `update tickets.webhook_deliveries set locked_until = now() - interval '1 second',
              next_attempt_at = now() - interval '1 minute' where id = $1`,
      [id],
    );
    await deliveries().releaseExpiredClaims('tickets.webhook_deliveries', 'delivering');
    expect((await deliveries().overdue('tickets.webhook_deliveries')).map((row) => row.id)).toContain(id);
  });

  it('restarts only a finished delivery, and not one whose endpoint was deleted', async () => {
    const { id, endpointId } = await deliveryOf();
    expect(await deliveries().restartDelivery(id)).toBe(false);
    await db.database.query(`update tickets.webhook_deliveries set status = 'failed' where id = $1`, [id]);
    expect(await deliveries().deliveryState(id)).toEqual({ status: 'failed', endpointDeleted: false });
    expect(await deliveries().restartDelivery(id)).toBe(true);
    await deliveries().deleteEndpoint(endpointId);
    expect((await deliveries().deliveryState(id))?.endpointDeleted).toBe(true);
  });
});
