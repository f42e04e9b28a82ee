import type { CommandSpec } from '../common/cli';
import { planCommands } from '../subgraphs/billing/plan.commands';
import { cvCommands } from '../subgraphs/cv/cv.commands';
import { webhookCommands } from '../subgraphs/tickets/events/webhook.commands';
import { ticketsCommands } from '../subgraphs/tickets/tickets.commands';

/** Every noun of the admin CLI; each subgraph contributes the commands of its own domain. */
export const ADMIN_COMMANDS: readonly CommandSpec[] = [
  ...planCommands,
  ...ticketsCommands,
  ...webhookCommands,
  ...cvCommands,
];
