import { ValidationError } from '../../../common/errors';
import { say, type MessageId } from '../../../common/messages';
import type { TicketStatus } from '../../../contracts/tickets/ticket.limits';

/**
 * The ticket's state machine: a ticket is made `waiting`; `ready` calls the customer; it ends
 * `collected` or `cancelled`, and nothing leaves those two. TicketService.move applies a move as one
 * conditional update whose WHERE holds the `from` states, so two staff tapping at once cannot both
 * move it; the loser is refused with the status it found.
 */
export type TicketMove = 'ready' | 'collected' | 'cancel';

/** The allowed moves (docs/API-DECISIONS.md): nothing leaves collected or cancelled. */
export const MOVES: Record<
  TicketMove,
  { from: readonly TicketStatus[]; to: TicketStatus; refused: MessageId }
> = {
  ready: { from: ['waiting'], to: 'ready', refused: 'ticket.cannot_ready' },
  collected: { from: ['waiting', 'ready'], to: 'collected', refused: 'ticket.cannot_collected' },
  cancel: { from: ['waiting', 'ready'], to: 'cancelled', refused: 'ticket.cannot_cancel' },
};

export function refuseMove(move: TicketMove, status: TicketStatus): ValidationError {
  const refused = say(MOVES[move].refused, { status });
  return new ValidationError({ status: [refused] }, refused);
}
