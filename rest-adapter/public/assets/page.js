// The ticket page, kept live over graphql-ws: the server rendered the state at load; this script
// follows every change and alerts the customer; the page's forms post to the page's own origin.
'use strict';
(function () {
  var root = document.getElementById('ticket');
  if (!root || !root.dataset.token) return;
  var token = root.dataset.token;
  var lang = root.dataset.lang;
  var FIELDS = 'status statusText ringCount readyAt createdAt updatedAt';
  var baseTitle = document.title;
  var status = root.dataset.status;
  var ringCount = Number(root.dataset.ringCount || 0);
  var updatedAt = Date.parse(root.dataset.updatedAt || '') || 0;
  var alertCount = 0;
  var audio = null;
  var wakeLock = null;

  function clock(iso) {
    if (!iso) return '';
    return new Intl.DateTimeFormat(lang === 'ar' ? 'ar-IQ' : 'en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      timeZone: root.dataset.timezone,
    }).format(new Date(iso));
  }

  // The estimate moves as the tickets ahead leave the kitchen, which this ticket's own events do not
  // tell: it is read again every minute while waiting, and its minutes count down in between.
  var estimate = root.querySelector('[data-field="estimate"]');
  var ESTIMATE_READ_MS = 60000;
  var estimateWords = estimate ? JSON.parse(estimate.dataset.words || '{}') : {};
  var digits = new Intl.NumberFormat(lang === 'ar' ? 'ar-IQ' : 'en-GB');

  /** As estimateText in ticket-page.html.ts: whole minutes rounded up, the Arabic plural's words. */
  function showEstimate(iso) {
    if (!estimate) return;
    if (iso !== undefined) estimate.dataset.at = iso || '';
    var at = Date.parse(estimate.dataset.at || '');
    if (status !== 'waiting' || !at) {
      estimate.hidden = true;
      return;
    }
    var minutes = Math.max(1, Math.ceil((at - Date.now()) / 60000));
    var form = minutes <= 1 ? 'one' : minutes === 2 ? 'two' : minutes <= 10 ? 'few' : 'many';
    estimate.textContent = String(estimateWords[form] || '').replace('{minutes}', digits.format(minutes));
    estimate.hidden = false;
  }

  function set(field, value) {
    var el = root.querySelector('[data-field="' + field + '"]');
    if (el) el.textContent = value;
  }

  function apply(ticket) {
    if (!ticket) return;
    // Events held while the live channel was away arrive after the refetch that followed; an older
    // state never replaces a newer one, nor alerts again.
    var changedAt = Date.parse(ticket.updatedAt) || 0;
    if (changedAt < updatedAt) return;
    updatedAt = changedAt;
    var next = String(ticket.status).toLowerCase();
    var alerted =
      (next === 'ready' && status !== 'ready') || (next === 'ready' && ticket.ringCount > ringCount);
    status = next;
    ringCount = ticket.ringCount;
    root.dataset.status = next;
    root.dataset.ringCount = String(ticket.ringCount);
    set('statusText', ticket.statusText);
    set('readyAt', clock(ticket.readyAt));
    set('createdAt', clock(ticket.createdAt));
    showEstimate(ticket.estimatedReadyAt);
    if (alerted) alertCustomer(ticket.statusText);
  }

  function chime() {
    if (!audio) return;
    var now = audio.currentTime;
    [880, 1175, 1568].forEach(function (frequency, i) {
      var start = now + i * 0.22;
      var tone = audio.createOscillator();
      var gain = audio.createGain();
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.5, start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.2);
      tone.connect(gain).connect(audio.destination);
      tone.start(start);
      tone.stop(start + 0.22);
    });
  }

  function alertCustomer(text) {
    alertCount += 1;
    root.dataset.alertCount = String(alertCount);
    chime();
    if (navigator.vibrate) navigator.vibrate([300, 150, 300, 150, 600]);
    root.classList.remove('alerting');
    void root.offsetWidth; // restarts the flash animation
    root.classList.add('alerting');
    document.title = '🔔 ' + text + ' · ' + baseTitle;
  }

  // The WhatsApp opt-in turns into "you'll be told on WhatsApp" once the customer's chat is linked,
  // which moves the ticket's live events without changing what they carry: it is read on each.
  var whatsapp = root.querySelector('.whatsapp');

  function showWhatsApp(ticket) {
    if (!whatsapp || !ticket || ticket.whatsappLinked === undefined) return;
    whatsapp.dataset.linked = String(ticket.whatsappLinked);
    var button = whatsapp.querySelector('.whatsapp-button');
    if (ticket.whatsappUrl) button.setAttribute('href', ticket.whatsappUrl);
  }

  function readWhatsApp() {
    if (!whatsapp) return;
    live
      .request('query ($t: String!) { ticketByToken(token: $t) { whatsappUrl whatsappLinked } }', {
        t: token,
      })
      .then(function (result) {
        if (result.data) showWhatsApp(result.data.ticketByToken);
      });
  }

  function offline(lost) {
    var banner = root.querySelector('.offline');
    if (banner) banner.hidden = !lost;
  }

  var live = window.liveClient({
    url: root.dataset.liveUrl,
    params: function () {
      return { 'accept-language': lang };
    },
    offlineError: root.querySelector('.offline').textContent,
    onStatus: function (state) {
      if (state !== 'connecting') offline(state === 'offline');
    },
    // Whatever changed while the page was loading or away.
    refetch: function () {
      live
        .request(
          'query ($t: String!) { ticketByToken(token: $t) { ' +
            FIELDS +
            ' estimatedReadyAt' +
            (whatsapp ? ' whatsappUrl whatsappLinked' : '') +
            ' } }',
          { t: token },
        )
        .then(function (result) {
          if (result.data) apply(result.data.ticketByToken);
          if (result.data) showWhatsApp(result.data.ticketByToken);
        });
    },
  });
  live.subscribe(
    'subscription ($t: String!) { ticketUpdated(token: $t) { ' + FIELDS + ' } }',
    { t: token },
    {
      next: function (payload) {
        if (payload.data) apply(payload.data.ticketUpdated);
        readWhatsApp();
      },
    },
  );

  // Offline, a read answers a refusal: the countdown goes on and the next read tries again.
  function readEstimate() {
    if (status !== 'waiting') return;
    live
      .request('query ($t: String!) { ticketByToken(token: $t) { estimatedReadyAt } }', { t: token })
      .then(function (result) {
        if (result.data && result.data.ticketByToken)
          showEstimate(result.data.ticketByToken.estimatedReadyAt);
      });
  }
  if (estimate) {
    window.setInterval(readEstimate, ESTIMATE_READ_MS);
    window.setInterval(function () {
      showEstimate();
    }, 15000);
  }

  /**
   * The page's writes go to the page's own origin (rate limited per address there); resolves with
   * an error text, empty on success.
   */
  function post(action, body) {
    return window
      .fetch(window.location.pathname + '/' + action, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'accept-language': lang },
        body: JSON.stringify(body),
      })
      .then(function (response) {
        if (response.ok) return '';
        return response.json().then(function (answer) {
          var fields = answer.errors;
          var first = fields && Object.keys(fields)[0];
          return first ? fields[first][0] : answer.message;
        });
      })
      .catch(function () {
        return root.querySelector('.offline').textContent;
      });
  }

  function keepAwake() {
    if (!navigator.wakeLock || document.visibilityState !== 'visible') return;
    navigator.wakeLock.request('screen').then(
      function (lock) {
        wakeLock = lock;
      },
      function () {},
    );
  }

  var alertsButton = root.querySelector('[data-action="alerts"]');
  if (alertsButton) {
    alertsButton.addEventListener('click', function () {
      // Browsers let a page make sound only after a gesture: this tap unlocks it.
      var Context = window.AudioContext || window.webkitAudioContext;
      if (!audio && Context) audio = new Context();
      if (audio) audio.resume();
      chime();
      if (navigator.vibrate) navigator.vibrate(80);
      keepAwake();
      if (!wakeLock) document.addEventListener('visibilitychange', keepAwake);
      subscribePush();
      alertsButton.textContent = alertsButton.dataset.on;
      alertsButton.setAttribute('aria-pressed', 'true');
      root.dataset.alerts = 'true';
      post('alerts', {});
    });
  }

  function base64UrlBytes(value) {
    var base64 = value.replace(/-/g, '+').replace(/_/g, '/');
    var raw = window.atob(base64 + '==='.slice((base64.length + 3) % 4));
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  /** Web Push, so ready and rings reach the customer while the page is in the background. */
  function subscribePush() {
    var key = root.dataset.pushKey;
    if (!key || !('serviceWorker' in navigator) || !('PushManager' in window) || !window.Notification) return;
    window.Notification.requestPermission()
      .then(function (permission) {
        if (permission !== 'granted') return;
        return navigator.serviceWorker
          .register('/t/sw.js', { scope: '/t/' })
          .then(function (registration) {
            return registration.pushManager.subscribe({
              userVisibleOnly: true,
              applicationServerKey: base64UrlBytes(key),
            });
          })
          .then(function (subscription) {
            return post('push', subscription.toJSON());
          });
      })
      .catch(function () {
        // No push service reachable (or refused): the page's own alerts still work while it is open.
      });
  }

  function wireForm(name, submit) {
    var form = root.querySelector('form[data-action="' + name + '"]');
    if (!form) return;
    var result = form.querySelector('.result');
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      submit(form).then(function (error) {
        button.disabled = false;
        if (error) {
          result.dataset.error = 'true';
          result.textContent = error;
          return;
        }
        delete result.dataset.error;
        result.textContent = form.dataset.done;
        form.dataset.sent = 'true';
      });
    });
  }

  wireForm('sms', function (form) {
    return post('sms', { phone: form.elements.phone.value });
  });

  wireForm('feedback', function (form) {
    var checked = form.querySelector('input[name="rating"]:checked');
    var comment = form.elements.comment.value;
    return post('feedback', { rating: checked ? Number(checked.value) : 0, comment: comment || null });
  });

  live.connect();
})();
