import type { CommandSpec } from '../common/cli';
import { planCommands } from './commands/plan.commands';
import { cvCommands } from './commands/cv.commands';
import { identityCommands } from './commands/identity.commands';
import { webhookCommands } from './commands/webhook.commands';
import { ticketsCommands } from './commands/tickets.commands';
import { ticketDeliveriesCommands } from './commands/ticket-deliveries.commands';

/** Every noun of the admin CLI, one file per domain in `tools/commands/`; each goes through the domain's own services. */
export const ADMIN_COMMANDS: readonly CommandSpec[] = [
  ...planCommands,
  ...ticketsCommands,
  ...webhookCommands,
  ...ticketDeliveriesCommands,
  ...cvCommands,
  ...identityCommands,
];
