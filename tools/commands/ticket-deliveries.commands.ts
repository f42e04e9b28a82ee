import { NotFoundError } from '../../common/errors';
import type { CommandSpec } from '../../common/cli';
import { ticketDeliveryLog } from '../../subgraphs/tickets/events';

export const ticketDeliveriesCommands: CommandSpec[] = [
  {
    noun: 'ticket',
    verb: 'deliveries',
    summary:
      "Shows a ticket's delivery log: each WhatsApp message, its SMS and its Web Push, with status, attempts and error.",
    flags: { id: { description: 'Ticket id.', type: 'integer', required: true } },
    async run(flags, context) {
      const em = await context.em('tickets');
      const ticketId = flags.id as number;
      const [ticket] = await em.execute<{ id: string }[]>('select id from tickets.tickets where id = ?', [
        ticketId,
      ]);
      if (ticket === undefined) throw new NotFoundError('Ticket not found.');
      return { ticket_id: ticketId, deliveries: await ticketDeliveryLog(em, ticketId) };
    },
  },
];
