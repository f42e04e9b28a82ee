import { ConflictError } from '../../common/errors';
import { UsageError, type CliContext, type CommandSpec, type FlagValues } from '../../common/cli';
import { JobQueues, parseEvents, WebhookEndpointService } from '../../subgraphs/tickets/events';
import { WEBHOOK_EVENTS } from '../../subgraphs/tickets/tickets';
import { auditVenue } from './venue-audit';

const id = (flags: FlagValues, name: string) => flags[name] as number;

const endpoints = async (context: CliContext): Promise<WebhookEndpointService> =>
  new WebhookEndpointService(await context.em('tickets'), context.config);

export const webhookCommands: CommandSpec[] = [
  {
    noun: 'webhook',
    verb: 'create',
    summary: 'Adds a webhook endpoint to a venue; its signing secret is shown once.',
    flags: {
      venue: { description: 'Venue id.', type: 'integer', required: true },
      url: { description: 'Receiver URL (https; public addresses only).', type: 'string', required: true },
      events: {
        description: `Comma-separated, of ${WEBHOOK_EVENTS.join(', ')} (default: every documented event).`,
        type: 'string',
      },
    },
    async run(flags, context) {
      const events = flags.events === undefined ? undefined : parseEvents(flags.events as string);
      const created = await (
        await endpoints(context)
      ).create(id(flags, 'venue'), flags.url as string, events);
      await auditVenue(context, created.venue_id, 'webhook.added', `webhook:${created.id}`, {
        url: created.url,
        events: created.events.join(','),
      });
      return created;
    },
  },
  {
    noun: 'webhook',
    verb: 'list',
    summary: "Lists a venue's webhook endpoints (never their secrets).",
    flags: { venue: { description: 'Venue id.', type: 'integer', required: true } },
    async run(flags, context) {
      return (await endpoints(context)).list(id(flags, 'venue'));
    },
  },
  {
    noun: 'webhook',
    verb: 'delete',
    summary: 'Deletes a webhook endpoint; nothing more is sent to it, retries included.',
    flags: { id: { description: 'Webhook endpoint id.', type: 'integer', required: true } },
    async run(flags, context) {
      const webhooks = await endpoints(context);
      const { venue_id: venueId } = await webhooks.endpoint(id(flags, 'id'));
      const deleted = await webhooks.delete(id(flags, 'id'));
      await auditVenue(context, venueId, 'webhook.deleted', `webhook:${deleted.id}`);
      return deleted;
    },
  },
  {
    noun: 'webhook',
    verb: 'rotate-secret',
    summary: 'Replaces the signing secret of an endpoint; the new one is shown once.',
    flags: { id: { description: 'Webhook endpoint id.', type: 'integer', required: true } },
    async run(flags, context) {
      const webhooks = await endpoints(context);
      const { venue_id: venueId } = await webhooks.endpoint(id(flags, 'id'));
      const rotated = await webhooks.rotateSecret(id(flags, 'id'));
      await auditVenue(context, venueId, 'webhook.secret_rotated', `webhook:${rotated.id}`);
      return rotated;
    },
  },
  {
    noun: 'webhook',
    verb: 'reseal',
    summary:
      'Seals every endpoint secret under WEBHOOK_SECRET_KEY that is still under WEBHOOK_SECRET_KEY_SECONDARY (key rotation, step 2).',
    flags: {
      batch: { description: 'Endpoints read and rewritten per batch (default 500).', type: 'integer' },
    },
    async run(flags, context) {
      if (context.config.webhooks.secondarySecretKey === null) {
        throw new UsageError(
          'webhook reseal: WEBHOOK_SECRET_KEY_SECONDARY is not set; run it with the key being retired there (docs/OPERATIONS.md "Rotating secrets")',
        );
      }
      const batch = (flags.batch as number | undefined) ?? 500;
      if (batch < 1) throw new UsageError('webhook reseal: --batch must be at least 1');
      const report = await (await endpoints(context)).resealSecrets(batch);
      if (report.unopenable.length > 0) {
        // Dropping the secondary key now would silence these endpoints for good.
        throw new ConflictError(
          `neither key opens the secrets of endpoints ${report.unopenable.join(', ')}; keep WEBHOOK_SECRET_KEY_SECONDARY and find the key that sealed them, or give those endpoints a new secret with webhook rotate-secret (${JSON.stringify(report)})`,
        );
      }
      return report;
    },
  },
  {
    noun: 'webhook',
    verb: 'deliveries',
    summary: "Shows an endpoint's latest deliveries with every attempt (status, duration, error).",
    flags: { id: { description: 'Webhook endpoint id.', type: 'integer', required: true } },
    async run(flags, context) {
      return (await endpoints(context)).deliveries(id(flags, 'id'));
    },
  },
  {
    noun: 'webhook',
    verb: 'redeliver',
    summary: 'Sends a delivered or failed delivery again, same event id and body.',
    flags: { delivery: { description: 'Webhook delivery id.', type: 'integer', required: true } },
    async run(flags, context) {
      const webhooks = await endpoints(context);
      const redelivered = await webhooks.redeliver(id(flags, 'delivery'));
      const venueId = await webhooks.venueOfDelivery(redelivered.id);
      if (venueId !== undefined)
        await auditVenue(context, venueId, 'webhook.redelivered', `delivery:${redelivered.id}`);
      const queues = new JobQueues(context.config, false);
      try {
        await queues.enqueue('webhooks', redelivered.id, 0);
      } finally {
        await queues.close();
      }
      return redelivered;
    },
  },
];
