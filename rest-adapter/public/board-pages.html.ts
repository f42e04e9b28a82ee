import { escapeHtml as e } from '../../common/html';
import type { TextLanguage } from '../../common/language';
import { text, type MessageId } from '../../common/messages';
import { RING_INTERVAL_SECONDS } from '../../contracts/tickets/ticket.limits';
import { documentStart, type PageAssets } from './ticket-page.html';

/** The words a page's script needs, in the page's language, by the names it uses. */
function wordsOf(language: TextLanguage, ids: Record<string, MessageId>): string {
  const words: Record<string, string> = {};
  for (const [name, id] of Object.entries(ids)) words[name] = text(id, language);
  return e(JSON.stringify(words));
}

const otherLanguage = (language: TextLanguage) =>
  language === 'ar'
    ? { href: '?lang=en', lang: 'en', label: 'English' }
    : { href: '?lang=ar', lang: 'ar', label: 'العربية' };

/** The words the board's scripts say, by the names they use. */
const BOARD_WORDS: Record<string, MessageId> = {
  waiting: 'board.page.waiting',
  ready: 'board.page.ready',
  markReady: 'board.page.mark_ready',
  ring: 'board.page.ring',
  ringIn: 'board.page.ring_in',
  collected: 'board.page.collected',
  cancel: 'board.page.cancel',
  confirmCancel: 'board.page.confirm_cancel',
  undo: 'board.page.undo',
  waited: 'board.page.waited',
  offline: 'board.page.offline',
  refusedOffline: 'board.page.refused_offline',
  removed: 'board.page.removed',
  empty: 'board.page.empty',
  noBranches: 'board.page.no_branches',
  confirmedAt: 'board.page.confirmed_at',
  pending: 'board.page.pending',
  conflictCount: 'board.page.conflict_count',
  dismiss: 'board.page.dismiss',
  conflictCancelled: 'board.page.conflict_cancelled',
  conflictCollected: 'board.page.conflict_collected',
  conflictRefused: 'board.page.conflict_refused',
  conflictCreate: 'board.page.conflict_create',
  conflictNotCreated: 'board.page.conflict_not_created',
  ringStale: 'board.page.ring_stale',
  ringNotReady: 'board.page.ring_not_ready',
  droppedChanges: 'board.page.dropped_changes',
  noNumbers: 'board.page.no_numbers',
  prefixNumbers: 'board.page.prefix_numbers',
};

/**
 * The staff board: pairing or sign-in first, then the branch's waiting and ready tickets. It is one
 * page whatever the credential; the script keeps it live over the gateway's socket and queues every
 * action in IndexedDB, so an offline board keeps working and sends what was done once it is back.
 * `worker` is the service worker that keeps the page and its files for a start with no connection.
 */
export function boardPage(
  language: TextLanguage,
  liveUrl: string,
  assets: PageAssets,
  worker: string,
): string {
  const say = (id: MessageId) => e(text(id, language));
  const other = otherLanguage(language);
  const words = wordsOf(language, BOARD_WORDS);
  // A board calls a ready number aloud while the display cannot hear of it, in the room's Arabic.
  const callAr = e(text('display.page.call', 'ar'));
  return `${documentStart(language, text('board.page.title', language), assets, 'board-body')}
<main id="board" data-live-url="${e(liveUrl)}" data-lang="${language}" data-ring-seconds="${RING_INTERVAL_SECONDS}" data-words="${words}" data-call-ar="${callAr}" data-worker="${e(worker)}" data-state="connecting" data-pending="0" data-conflicts="0">
<header class="board-head">
<h1>${say('board.page.title')} <span class="branch-name"></span></h1>
<span class="offline" role="status" hidden>${say('board.page.offline')} <span class="confirmed"></span></span>
<a class="lang" href="${other.href}" hreflang="${other.lang}" lang="${other.lang}">${other.label}</a>
<button type="button" class="leave" hidden>${say('board.page.leave')}</button>
</header>
<section class="setup" hidden>
<form class="pair-form">
<label>${say('board.page.pair_code')} <input name="code" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="12" required></label>
<button type="submit">${say('board.page.pair')}</button>
</form>
<p class="or">${say('board.page.or_sign_in')}</p>
<form class="sign-in-form">
<label>${say('board.page.email')} <input name="email" type="email" autocomplete="username" required></label>
<label>${say('board.page.password')} <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">${say('board.page.sign_in')}</button>
</form>
<form class="branch-form" hidden>
<label>${say('board.page.branch')} <select name="branch"></select></label>
<button type="submit">${say('board.page.open')}</button>
</form>
<p class="setup-error" role="alert"></p>
</section>
<section class="work" hidden>
<form class="new-ticket">
<input name="number" maxlength="20" placeholder="${say('board.page.number')}" aria-label="${say('board.page.number')}">
<input name="customerName" maxlength="80" placeholder="${say('board.page.customer_name')}" aria-label="${say('board.page.customer_name')}">
<input name="customerPhone" inputmode="tel" maxlength="20" placeholder="${say('board.page.customer_phone')}" aria-label="${say('board.page.customer_phone')}">
<button type="submit">${say('board.page.new_ticket')}</button>
</form>
<section class="wait" aria-live="polite" data-alert="false" hidden>
<div><span class="label">${say('board.page.wait_waiting')}</span> <span class="value" data-wait="waiting"></span></div>
<div><span class="label">${say('board.page.wait_median')}</span> <span class="value" data-wait="median"></span></div>
<div><span class="label">${say('board.page.wait_oldest')}</span> <span class="value" data-wait="oldest"></span></div>
</section>
<input type="search" class="search" placeholder="${say('board.page.search')}" aria-label="${say('board.page.search')}">
<p class="notice" role="alert"></p>
<section class="sync-status" role="status" hidden><span class="pending"></span> <span class="conflict-count"></span><ul class="conflicts"></ul></section>
<div class="lists">
<section class="list waiting"><h2>${say('board.page.waiting')} <span class="count" data-count="waiting">0</span></h2><ul data-list="waiting"></ul></section>
<section class="list ready"><h2>${say('board.page.ready')} <span class="count" data-count="ready">0</span></h2><ul data-list="ready"></ul></section>
</div>
</section>
</main>
</body>
</html>`;
}

/** The room's display: the numbers come from the script, over the gateway's socket, by the token. */
export function displayPage(
  token: string,
  language: TextLanguage,
  liveUrl: string,
  assets: PageAssets,
): string {
  const say = (id: MessageId) => e(text(id, language));
  const words = wordsOf(language, {
    preparing: 'display.page.preparing',
    ready: 'display.page.ready',
    call: 'display.page.call',
    tapForSound: 'display.page.tap_for_sound',
    offline: 'display.page.offline',
    gone: 'display.page.gone',
  });
  return `${documentStart(language, `${text('display.page.preparing', language)} · ${text('display.page.ready', language)}`, assets, 'display-body')}
<main id="display" data-token="${e(token)}" data-live-url="${e(liveUrl)}" data-lang="${language}" data-words="${words}" data-state="connecting" data-audio="locked" data-calls="0" data-chimes="0" data-spoken="0" data-last-call="">
<header class="display-head">
<h1 class="display-title"></h1>
<span class="offline" hidden>${say('display.page.offline')}</span>
</header>
<section class="columns">
<div class="column preparing"><h2>${say('display.page.preparing')}</h2><ol class="numbers" data-list="waiting"></ol></div>
<div class="column ready"><h2>${say('display.page.ready')}</h2><ol class="numbers" data-list="ready"></ol></div>
</section>
<button type="button" class="unlock">${say('display.page.tap_for_sound')}</button>
<p class="gone" hidden>${say('display.page.gone')}</p>
</main>
</body>
</html>`;
}
