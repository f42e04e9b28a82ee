import type { TextLanguage } from '../../common/language';
import { text, type MessageId, type MessageParams } from '../../common/messages';
import { escapeHtml } from '../../common/html';

/** The ticket as the page shows it: `PublicTicket` from the graph, in the page's language. */
export interface PageTicket {
  number: string;
  status: 'WAITING' | 'READY' | 'COLLECTED' | 'CANCELLED';
  statusText: string;
  venueName: string;
  branchName: string;
  timezone: string;
  ringCount: number;
  alertsEnabled: boolean;
  smsOptIn: boolean;
  smsAvailable: boolean;
  pushKey: string | null;
  /** The wa.me link that opts in to the ready alert on WhatsApp; null when off or no longer waiting. */
  whatsappUrl: string | null;
  /** A customer's WhatsApp chat is linked to the ticket. */
  whatsappLinked: boolean;
  feedback: { rating: number } | null;
  readyAt: string | null;
  collectedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** From the branch's recent prep times; null without enough of them, and once not waiting. */
  estimatedReadyAt: string | null;
}

/** Hashed asset paths, so the page can tell browsers to keep them forever. */
export interface PageAssets {
  /** In the order they run: the shared live client (`live.js`) before the page's own script. */
  scripts: readonly string[];
  style: string;
}

/** The page's words in its language (common/messages.ts), and the link to the other language. */
function wordsIn(language: TextLanguage) {
  const say = (id: MessageId, params?: MessageParams) => text(id, language, params);
  return {
    say,
    other:
      language === 'ar'
        ? { href: '?lang=en', lang: 'en', label: 'English' }
        : { href: '?lang=ar', lang: 'ar', label: 'العربية' },
  };
}

const STATUSES = ['waiting', 'ready', 'collected', 'cancelled'] as const;

/** The estimate's wording by the Arabic plural of its minutes; page.js picks the same way. */
const ESTIMATE_FORMS = ['one', 'two', 'few', 'many'] as const;

function estimateForm(minutes: number): (typeof ESTIMATE_FORMS)[number] {
  if (minutes <= 1) return 'one';
  if (minutes === 2) return 'two';
  return minutes <= 10 ? 'few' : 'many';
}

/**
 * "Usually ready in about 8 minutes" from the estimate and now, whole minutes rounded up (a
 * minute at least), with the page language's digits; empty without an estimate.
 */
export function estimateText(iso: string | null, now: number, language: TextLanguage): string {
  if (iso === null) return '';
  const minutes = Math.max(1, Math.ceil((Date.parse(iso) - now) / 60_000));
  const digits = new Intl.NumberFormat(language === 'ar' ? 'ar-IQ' : 'en-GB').format(minutes);
  return text(`page.ticket.estimate.${estimateForm(minutes)}`, language, { minutes: digits });
}

/** Everything up to `<body>`: language and direction, the policy-friendly head, the assets. */
export function documentStart(
  language: TextLanguage,
  title: string,
  assets: { style: string; scripts?: readonly string[] },
  bodyClass?: string,
): string {
  return `<!doctype html>
<html lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assets.style}">${(assets.scripts ?? []).map((src) => `\n<script src="${src}" defer></script>`).join('')}
</head>
<body${bodyClass !== undefined ? ` class="${bodyClass}"` : ''}>`;
}

/** Hours and minutes in the venue's zone, with the page language's digits. */
function clock(iso: string | null, language: TextLanguage, timezone: string): string {
  if (iso === null) return '';
  return new Intl.DateTimeFormat(language === 'ar' ? 'ar-IQ' : 'en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    timeZone: timezone,
  }).format(new Date(iso));
}

/**
 * The whole page as it stands at load, complete without scripts: the script only keeps it live
 * (data-status, texts, times), plays the alerts and sends the forms over the same socket.
 */
export function ticketPage(
  ticket: PageTicket,
  token: string,
  language: TextLanguage,
  liveUrl: string,
  assets: PageAssets,
): string {
  const { say, other } = wordsIn(language);
  const status = ticket.status.toLowerCase();
  const e = escapeHtml;
  const hints = STATUSES.map(
    (s) => `<p class="hint" data-when="${s}">${e(say(`page.ticket.hint.${s}`))}</p>`,
  ).join('');
  const estimateWords = e(
    JSON.stringify(
      Object.fromEntries(ESTIMATE_FORMS.map((form) => [form, say(`page.ticket.estimate.${form}`)])),
    ),
  );
  const estimate = ticket.status === 'WAITING' ? ticket.estimatedReadyAt : null;
  const stars = [1, 2, 3, 4, 5]
    .map(
      (n) =>
        `<label class="star"><input type="radio" name="rating" value="${n}" required><span aria-label="${e(say('page.ticket.rating', { n }))}">★</span></label>`,
    )
    .join('');
  return `${documentStart(language, say('page.ticket.title', { number: ticket.number }), assets)}
<main id="ticket" data-status="${status}" data-token="${e(token)}" data-live-url="${e(liveUrl)}" data-lang="${language}" data-ring-count="${ticket.ringCount}" data-updated-at="${e(ticket.updatedAt)}" data-alerts="${ticket.alertsEnabled}" data-timezone="${e(ticket.timezone)}"${ticket.pushKey ? ` data-push-key="${e(ticket.pushKey)}"` : ''}>
<header>
<p class="venue"><bdi>${e(ticket.venueName)}</bdi> · <bdi>${e(ticket.branchName)}</bdi></p>
<a class="lang" href="${other.href}" hreflang="${other.lang}" lang="${other.lang}">${other.label}</a>
</header>
<section class="card" aria-live="polite">
<p class="label">${e(say('page.ticket.your_number'))}</p>
<p class="number" dir="ltr">${e(ticket.number)}</p>
<p class="status" data-field="statusText">${e(ticket.statusText)}</p>
<p class="estimate" data-when="waiting" data-field="estimate" data-at="${e(estimate ?? '')}" data-words="${estimateWords}"${estimate === null ? ' hidden' : ''}>${e(estimateText(estimate, Date.now(), language))}</p>
${hints}
<dl class="times">
<div><dt>${e(say('page.ticket.ordered'))}</dt><dd data-field="createdAt">${e(clock(ticket.createdAt, language, ticket.timezone))}</dd></div>
<div data-when="ready"><dt>${e(say('page.ticket.ready_at'))}</dt><dd data-field="readyAt">${e(clock(ticket.readyAt, language, ticket.timezone))}</dd></div>
</dl>
</section>
<button class="alerts" type="button" data-action="alerts" data-on="${e(say('page.ticket.alerts_on'))}" ${ticket.alertsEnabled ? 'aria-pressed="true"' : 'aria-pressed="false"'}>${e(say(ticket.alertsEnabled ? 'page.ticket.alerts_on' : 'page.ticket.alerts'))}</button>
${whatsAppBlock(ticket, say)}${
    ticket.smsAvailable
      ? `<form class="sms" data-action="sms" data-when="waiting" data-done="${e(say('page.ticket.sms_done'))}"${ticket.smsOptIn ? ' data-sent="true"' : ''}>
<label for="phone">${e(say('page.ticket.sms'))}</label>
<div class="row"><input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" dir="ltr" placeholder="${e(say('page.ticket.sms_placeholder'))}" required><button type="submit">${e(say('page.ticket.send'))}</button></div>
<p class="result" role="status">${ticket.smsOptIn ? e(say('page.ticket.sms_done')) : ''}</p>
</form>`
      : ''
  }
<form class="feedback" data-action="feedback" data-when="collected" data-done="${e(say('page.ticket.thanks'))}"${ticket.feedback ? ' data-sent="true"' : ''}>
<fieldset><legend>${e(say('page.ticket.rate'))}</legend><div class="stars" dir="ltr">${stars}</div></fieldset>
<textarea name="comment" maxlength="500" placeholder="${e(say('page.ticket.comment'))}"></textarea>
<button type="submit">${e(say('page.ticket.send'))}</button>
<p class="result" role="status">${ticket.feedback ? e(say('page.ticket.thanks')) : ''}</p>
</form>
<p class="offline" hidden>${e(say('page.ticket.offline'))}</p>
</main>
</body>
</html>
`;
}

/**
 * The WhatsApp opt-in, above the SMS: the button while the chat is not linked, "you'll be told on
 * WhatsApp" once it is (page.js turns one into the other live). Nothing at a venue without WhatsApp.
 */
function whatsAppBlock(ticket: PageTicket, say: (id: MessageId) => string): string {
  if (ticket.whatsappUrl === null && !ticket.whatsappLinked) return '';
  const e = escapeHtml;
  const href = ticket.whatsappUrl === null ? '' : ` href="${e(ticket.whatsappUrl)}"`;
  return `<div class="whatsapp" data-when="waiting" data-linked="${ticket.whatsappLinked}">
<a class="whatsapp-button" data-action="whatsapp"${href} target="_blank" rel="noopener noreferrer">${e(say('page.ticket.whatsapp'))}</a>
<p class="whatsapp-linked" role="status">${e(say('page.ticket.whatsapp_linked'))}</p>
</div>
`;
}

/** The friendly page for a token that names no ticket (served with 404). */
export function notFoundPage(language: TextLanguage, assets: PageAssets): string {
  return `${documentStart(language, '404', { style: assets.style })}
<main id="ticket" data-status="missing">
<section class="card"><p class="status">${escapeHtml(text('page.ticket.not_found', language))}</p></section>
</main>
</body>
</html>
`;
}
