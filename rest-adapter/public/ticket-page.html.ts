import type { TextLanguage } from '../../common/language';

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
  feedback: { rating: number } | null;
  readyAt: string | null;
  collectedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Hashed asset paths, so the page can tell browsers to keep them forever. */
export interface PageAssets {
  script: string;
  style: string;
}

const TEXTS = {
  ar: {
    yourNumber: 'رقم طلبك',
    title: (n: string) => `طلبك رقم ${n}`,
    hints: {
      waiting: 'طلبك قيد التحضير. سننبهك هنا عندما يصبح جاهزاً.',
      ready: 'طلبك جاهز. تفضل بالاستلام.',
      collected: 'بالعافية!',
      cancelled: 'أُلغي هذا الطلب.',
    },
    ordered: 'وقت الطلب',
    readyAt: 'جاهز منذ',
    alerts: 'اضغط لتفعيل التنبيهات',
    alertsOn: 'التنبيهات مفعلة',
    sms: 'أرسل لي رسالة نصية عندما يجهز',
    smsPlaceholder: '07XX XXX XXXX',
    smsDone: 'سنرسل لك رسالة عندما يجهز طلبك.',
    send: 'إرسال',
    rate: 'قيّم طلبك',
    comment: 'تعليق (اختياري)',
    thanks: 'شكراً لتقييمك!',
    offline: 'انقطع الاتصال. جارٍ إعادة الاتصال…',
    other: { href: '?lang=en', lang: 'en', label: 'English' },
    notFound: 'لم نجد هذه التذكرة. تأكد من الرمز على الإيصال.',
    rating: (n: number) => `${n} من 5`,
  },
  en: {
    yourNumber: 'Your number',
    title: (n: string) => `Order ${n}`,
    hints: {
      waiting: 'Your order is being prepared. We will alert you here when it is ready.',
      ready: 'Your order is ready. Please collect it.',
      collected: 'Enjoy your meal!',
      cancelled: 'This order was cancelled.',
    },
    ordered: 'Ordered at',
    readyAt: 'Ready at',
    alerts: 'Tap to enable alerts',
    alertsOn: 'Alerts on',
    sms: 'Text me when it is ready',
    smsPlaceholder: '07XX XXX XXXX',
    smsDone: 'We will text you when your order is ready.',
    send: 'Send',
    rate: 'Rate your order',
    comment: 'Comment (optional)',
    thanks: 'Thank you for your rating!',
    offline: 'Connection lost. Reconnecting…',
    other: { href: '?lang=ar', lang: 'ar', label: 'العربية' },
    notFound: 'This ticket was not found. Check the code on your receipt.',
    rating: (n: number) => `${n} of 5`,
  },
} as const;

const STATUSES = ['waiting', 'ready', 'collected', 'cancelled'] as const;

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** Everything up to `<body>`: language and direction, the policy-friendly head, the assets. */
function documentStart(language: TextLanguage, title: string, assets: PageAssets, live: boolean): string {
  return `<!doctype html>
<html lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assets.style}">${live ? `\n<script src="${assets.script}" defer></script>` : ''}
</head>
<body>`;
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
  const t = TEXTS[language];
  const status = ticket.status.toLowerCase();
  const e = escapeHtml;
  const hints = STATUSES.map((s) => `<p class="hint" data-when="${s}">${e(t.hints[s])}</p>`).join('');
  const stars = [1, 2, 3, 4, 5]
    .map(
      (n) =>
        `<label class="star"><input type="radio" name="rating" value="${n}" required><span aria-label="${e(t.rating(n))}">★</span></label>`,
    )
    .join('');
  return `${documentStart(language, t.title(ticket.number), assets, true)}
<main id="ticket" data-status="${status}" data-token="${e(token)}" data-live-url="${e(liveUrl)}" data-lang="${language}" data-ring-count="${ticket.ringCount}" data-updated-at="${e(ticket.updatedAt)}" data-alerts="${ticket.alertsEnabled}" data-timezone="${e(ticket.timezone)}"${ticket.pushKey ? ` data-push-key="${e(ticket.pushKey)}"` : ''}>
<header>
<p class="venue"><bdi>${e(ticket.venueName)}</bdi> · <bdi>${e(ticket.branchName)}</bdi></p>
<a class="lang" href="${t.other.href}" hreflang="${t.other.lang}" lang="${t.other.lang}">${t.other.label}</a>
</header>
<section class="card" aria-live="polite">
<p class="label">${e(t.yourNumber)}</p>
<p class="number" dir="ltr">${e(ticket.number)}</p>
<p class="status" data-field="statusText">${e(ticket.statusText)}</p>
${hints}
<dl class="times">
<div><dt>${e(t.ordered)}</dt><dd data-field="createdAt">${e(clock(ticket.createdAt, language, ticket.timezone))}</dd></div>
<div data-when="ready"><dt>${e(t.readyAt)}</dt><dd data-field="readyAt">${e(clock(ticket.readyAt, language, ticket.timezone))}</dd></div>
</dl>
</section>
<button class="alerts" type="button" data-action="alerts" data-on="${e(t.alertsOn)}" ${ticket.alertsEnabled ? 'aria-pressed="true"' : 'aria-pressed="false"'}>${e(ticket.alertsEnabled ? t.alertsOn : t.alerts)}</button>
${
  ticket.smsAvailable
    ? `<form class="sms" data-action="sms" data-when="waiting" data-done="${e(t.smsDone)}"${ticket.smsOptIn ? ' data-sent="true"' : ''}>
<label for="phone">${e(t.sms)}</label>
<div class="row"><input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" dir="ltr" placeholder="${e(t.smsPlaceholder)}" required><button type="submit">${e(t.send)}</button></div>
<p class="result" role="status">${ticket.smsOptIn ? e(t.smsDone) : ''}</p>
</form>`
    : ''
}
<form class="feedback" data-action="feedback" data-when="collected" data-done="${e(t.thanks)}"${ticket.feedback ? ' data-sent="true"' : ''}>
<fieldset><legend>${e(t.rate)}</legend><div class="stars" dir="ltr">${stars}</div></fieldset>
<textarea name="comment" maxlength="500" placeholder="${e(t.comment)}"></textarea>
<button type="submit">${e(t.send)}</button>
<p class="result" role="status">${ticket.feedback ? e(t.thanks) : ''}</p>
</form>
<p class="offline" hidden>${e(t.offline)}</p>
</main>
</body>
</html>
`;
}

/** The friendly page for a token that names no ticket (served with 404). */
export function notFoundPage(language: TextLanguage, assets: PageAssets): string {
  const t = TEXTS[language];
  return `${documentStart(language, '404', assets, false)}
<main id="ticket" data-status="missing">
<section class="card"><p class="status">${escapeHtml(t.notFound)}</p></section>
</main>
</body>
</html>
`;
}
