import { operation } from '../graph-client';
import type { PageTicket } from './ticket-page.html';

/** The graph operations the customer's ticket page maps onto, each addressed by the ticket's token. */

/** Opens the page: the ticket as the customer sees it, linking it on the first open. */
export const OPEN_PAGE = operation<{ linkTicket: PageTicket }, { token: string }>(
  'TicketPageOpen',
  `mutation TicketPageOpen($token: String!) {
    linkTicket(token: $token) {
      number status statusText venueName branchName timezone ringCount alertsEnabled smsOptIn smsAvailable pushKey
      whatsappUrl whatsappLinked
      feedback { rating } readyAt collectedAt createdAt updatedAt estimatedReadyAt
    }
  }`,
);

/** The customer allows alerts. */
export const ENABLE_ALERTS = operation<{ enableTicketAlerts: { alertsEnabled: boolean } }, { token: string }>(
  'TicketPageAlerts',
  'mutation TicketPageAlerts($token: String!) { enableTicketAlerts(token: $token) { alertsEnabled } }',
);

/** The customer asks to be texted when ready. */
export const OPT_IN_SMS = operation<
  { optInTicketSms: { smsOptIn: boolean } },
  { token: string; phone: string }
>(
  'TicketPageSms',
  'mutation TicketPageSms($token: String!, $phone: String!) { optInTicketSms(token: $token, phone: $phone) { smsOptIn } }',
);

/** The page's Web Push subscription. */
export const SUBSCRIBE_PUSH = operation<
  { subscribeTicketPush: { pushKey: string | null } },
  { token: string; endpoint: string; p256dh: string; auth: string }
>(
  'TicketPagePush',
  `mutation TicketPagePush($token: String!, $endpoint: String!, $p256dh: String!, $auth: String!) {
    subscribeTicketPush(token: $token, endpoint: $endpoint, p256dh: $p256dh, auth: $auth) { pushKey }
  }`,
);

/** The customer's rating. */
export const SUBMIT_FEEDBACK = operation<
  { submitTicketFeedback: { rating: number; comment: string | null; createdAt: string } },
  { token: string; rating: number; comment: string | null }
>(
  'TicketPageFeedback',
  `mutation TicketPageFeedback($token: String!, $rating: Int!, $comment: String) {
    submitTicketFeedback(token: $token, rating: $rating, comment: $comment) { rating comment createdAt }
  }`,
);

/** Whether a token names a ticket, before its QR image is drawn. */
export const TICKET_EXISTS = operation<{ ticketByToken: { number: string } | null }, { token: string }>(
  'TicketQr',
  'query TicketQr($token: String!) { ticketByToken(token: $token) { number } }',
);

/** The ticket's WhatsApp link, for a QR image that opens the chat instead of the page (`?to=whatsapp`). */
export const TICKET_WHATSAPP = operation<
  { ticketByToken: { whatsappUrl: string | null } | null },
  { token: string }
>(
  'TicketQrWhatsApp',
  'query TicketQrWhatsApp($token: String!) { ticketByToken(token: $token) { whatsappUrl } }',
);
