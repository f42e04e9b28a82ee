// The room's display, live over graphql-ws by its token: a number turning ready (or rung) is called
// with a chime, then spoken. Old Android TV browsers run it as written.
'use strict';
(function () {
  var root = document.getElementById('display');
  if (!root) return;
  var lang = root.dataset.lang;
  var words = JSON.parse(root.dataset.words);
  var FIELDS = 'id number status readyAt ringCount updatedAt';
  var banner = root.querySelector('.offline');
  var unlockButton = root.querySelector('.unlock');
  var speech = window.speechSynthesis;
  var tickets = {}; // by id, those on screen
  var gone = {}; // by id, those that left: a stale event cannot bring one back
  var items = {}; // by id, their <li>s, moved rather than remade so an animation runs on
  var latestId = null;
  var settings = {}; // the board's, once read
  var booted = false;
  var recent = null; // live tickets before this socket's board, replayed over it
  var lag = 0; // the TV's clock less the server's, by live events: a TV's may be far off
  var audio = null;
  var unlocked = false;
  var queue = [];

  function noop() {}

  function count(name) {
    root.dataset[name] = String(Number(root.dataset[name]) + 1);
  }

  function ms(iso) {
    return Date.parse(iso) || 0;
  }

  function readyTime(ticket) {
    return ms(ticket.readyAt) || ticket.at;
  }

  /** Ready numbers leave after the display's minutes, or as many after a ring. */
  function expired(ticket) {
    var since = Math.max(readyTime(ticket), ticket.calledAt || 0);
    return ticket.status === 'READY' && Date.now() - lag - since > settings.readyMinutes * 60000;
  }

  /** Takes a ticket's state; answers whether it is a call. */
  function take(ticket, live) {
    var before = tickets[ticket.id] || gone[ticket.id];
    ticket.at = ms(ticket.updatedAt);
    if (before && ticket.at < before.at) return false; // a stale event never wins
    var called =
      live &&
      ticket.status === 'READY' &&
      (!before || before.status !== 'READY' || ticket.ringCount > before.ringCount);
    ticket.calledAt = called ? ticket.at : before && before.calledAt;
    if ((ticket.status === 'WAITING' || ticket.status === 'READY') && !expired(ticket)) {
      tickets[ticket.id] = ticket;
      delete gone[ticket.id];
    } else leave(ticket);
    return called;
  }

  function leave(ticket) {
    delete tickets[ticket.id];
    delete items[ticket.id];
    if (Object.keys(gone).length > 500) gone = {};
    gone[ticket.id] = ticket;
  }

  function fill(name, shown, latest) {
    var list = root.querySelector('ol[data-list="' + name + '"]');
    shown.forEach(function (ticket, i) {
      var li = items[ticket.id] || (items[ticket.id] = document.createElement('li'));
      li.textContent = li.dataset.number = ticket.number;
      // A number is the venue's text: it reads in its own direction whatever the page's.
      li.dir = 'auto';
      li.className = ticket === latest ? 'latest' : '';
      if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
    });
    while (list.children.length > shown.length) list.removeChild(list.lastChild);
  }

  function render() {
    var waiting = [];
    var ready = [];
    var latest = tickets[latestId];
    Object.keys(tickets).forEach(function (id) {
      (tickets[id].status === 'READY' ? ready : waiting).push(tickets[id]);
    });
    // Ids grow as tickets are made: oldest order first; newest ready first.
    waiting.sort(function (a, b) {
      return a.id - b.id;
    });
    ready.sort(function (a, b) {
      return readyTime(b) - readyTime(a) || b.id - a.id;
    });
    fill('waiting', waiting, null);
    fill('ready', ready, latest && latest.status === 'READY' ? latest : ready[0]);
  }

  function call(ticket) {
    count('calls');
    root.dataset.lastCall = words.call.replace('{number}', ticket.number);
    latestId = ticket.id;
    render();
    var li = items[ticket.id] || {};
    li.className = '';
    void li.offsetWidth; // replays the highlight for a second ring
    li.className = 'latest';
    // Locked, nothing sounds; a long backlog is cut short.
    if (!unlocked || !((settings.chime && audio) || settings.speech) || queue.length > 9) return;
    queue.push(root.dataset.lastCall); // the first is the one sounding
    if (queue.length === 1) play();
  }

  /** The whole state after each (re)connect, so nothing missed is lost. */
  function onBoard(data) {
    var board = data && data.displayBoard;
    if (!board) return live.drop();
    // A manager switched the display's language: its words and voice come with the page.
    if (board.language !== lang) return window.location.reload();
    settings = board;
    var title = root.querySelector('.display-title');
    title.textContent = '';
    [board.venueName, ' · ', board.branchName].forEach(function (part, i) {
      // The names are isolated so one in the other script cannot swap places with its neighbours.
      var node = i === 1 ? document.createTextNode(part) : document.createElement('bdi');
      if (i !== 1) node.textContent = part;
      title.appendChild(node);
    });
    // What left is not on the board; what came live before it is as new or newer.
    Object.keys(tickets).forEach(function (id) {
      gone[id] = tickets[id];
    });
    tickets = {};
    board.tickets.concat(recent).forEach(function (ticket) {
      take(ticket, false);
    });
    recent = null;
    booted = true;
    live.resetBackoff();
    root.dataset.state = 'live';
    root.classList.remove('stale');
    banner.hidden = true;
    audioState();
    render();
  }

  function revoke() {
    root.dataset.state = 'revoked';
    root.classList.remove('stale');
    banner.hidden = unlockButton.hidden = root.querySelector('.columns').hidden = true;
    root.querySelector('.gone').hidden = false;
    queue = [];
    live.stop();
  }

  function notFound(errors) {
    return Boolean(errors && errors[0] && errors[0].extensions && errors[0].extensions.code === 'NOT_FOUND');
  }

  var live = window.liveClient({
    url: root.dataset.liveUrl,
    params: function () {
      return { 'accept-language': lang };
    },
    // A TV's Wi-Fi can vanish unnoticed by the socket: an unanswered ping ends it.
    heartbeat: 20000,
    // A socket counts once the board is read: one acknowledged and then failing keeps backing off.
    ackResetsBackoff: false,
    // The room cannot learn of a call while the display is away, so it tries again within 1.5 s
    // however long the outage (one connection attempt per display every 0.75–1.5 s meanwhile),
    // and shows what the board did within 2 s of the line coming back.
    backoff: { first: 1000, max: 1500 },
    onStatus: function (state) {
      if (state !== 'offline') return;
      root.dataset.state = 'offline';
      root.classList.add('stale');
      banner.hidden = false;
    },
    onClose: function (code) {
      if (code === 4403) return revoke();
      // 4205: a manager changed the display: read it again at once.
      if (code === 4205) return 0;
    },
    refetch: function () {
      recent = [];
      live
        .request(
          'query ($t: String!) { displayBoard(token: $t) { name venueName branchName language chime speech readyMinutes tickets { ' +
            FIELDS +
            ' } } }',
          { t: root.dataset.token },
        )
        .then(function (result) {
          // Refused for want of a socket: it is already being retried.
          if (!live.isLive()) return;
          if (notFound(result.errors)) revoke();
          else onBoard(result.data);
        });
    },
  });
  live.subscribe(
    'subscription ($t: String!) { displayTicketsUpdated(token: $t) { ' + FIELDS + ' } }',
    { t: root.dataset.token },
    {
      next: function (payload) {
        if (notFound(payload.errors)) return revoke();
        if (!payload.data) return live.drop();
        var ticket = payload.data.displayTicketsUpdated;
        if (recent) recent.push(ticket);
        lag = Date.now() - ms(ticket.updatedAt);
        var called = take(ticket, true);
        render();
        if (called) call(ticket);
      },
      error: function (errors) {
        if (notFound(errors)) revoke();
        else live.drop();
      },
      complete: function () {
        live.drop();
      },
    },
  );

  function next() {
    queue.shift();
    if (queue.length) play();
  }

  /** One call at a time: chime, then words; the next waits for their end. */
  function play() {
    var text = queue[0];
    var chimed = settings.chime && audio;
    var voice = settings.speech && window.callOut.voiceFor(lang);
    if (chimed) {
      audio.resume().catch(noop);
      window.callOut.chime(audio);
      count('chimes');
    }
    if (!voice) return window.setTimeout(next, chimed ? 1200 : 0);
    // The number as written: engines say "42" as forty-two.
    var utterance = new window.SpeechSynthesisUtterance(text);
    function finish() {
      // Also held by the timer: some engines drop an unreferenced utterance before it ends.
      if (!utterance.onend) return;
      utterance.onend = utterance.onerror = null;
      window.setTimeout(next, 400);
    }
    utterance.voice = voice;
    utterance.lang = String(voice.lang).replace('_', '-');
    utterance.rate = 0.9;
    utterance.onend = utterance.onerror = finish;
    window.setTimeout(speak, chimed ? 700 : 0);
    function speak() {
      speech.speak(utterance);
      count('spoken');
      window.setTimeout(finish, 8000); // some engines never fire end
    }
  }

  function audioState() {
    var wanted = !booted || settings.chime || settings.speech;
    root.dataset.audio = !wanted ? 'off' : unlocked ? 'on' : 'locked';
    unlockButton.hidden = !wanted || unlocked;
  }

  /** Browsers let a page sound only after a gesture: the first tap or key. */
  function unlock() {
    var Context = window.AudioContext || window.webkitAudioContext;
    unlocked = true;
    if (!audio && Context) audio = new Context();
    if (audio) audio.resume().catch(noop);
    keepAwake();
    audioState();
  }

  function keepAwake() {
    // A lock ends when the page is hidden; refused, the TV's own settings decide.
    if (navigator.wakeLock && document.visibilityState === 'visible') {
      navigator.wakeLock.request('screen').catch(noop);
    }
  }

  function sweep() {
    Object.keys(tickets).forEach(function (id) {
      if (expired(tickets[id])) leave(tickets[id]);
    });
    render();
  }

  ['click', 'keydown'].forEach(function (name) {
    document.addEventListener(name, unlock, true);
  });
  // The first ask starts the system loading its voices, which are often late.
  if (speech) speech.getVoices();
  document.addEventListener('visibilitychange', function () {
    keepAwake();
    if (document.visibilityState === 'visible') live.connect();
  });
  window.addEventListener('online', live.connect);
  window.addEventListener('offline', live.drop);
  window.setInterval(sweep, 15000);
  unlockButton.focus(); // for a TV remote's OK
  keepAwake();
  live.connect();
})();
