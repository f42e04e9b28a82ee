/*
 * The staff board. Reads go over one graphql-ws socket to the gateway; every action goes into the
 * durable queue of board-sync.js first and is shown at once, so the kitchen keeps working through
 * an outage: the board opens from its service worker and IndexedDB with the last confirmed
 * tickets, takes numbers from its lease, and sends what was done, in order, once the line is back.
 * ES2019 at most, no framework: tablets of every age run it.
 */
(function () {
  'use strict';
  var root = document.getElementById('board');
  if (!root) return;
  var words = JSON.parse(root.dataset.words);
  var lang = root.dataset.lang;
  var RING_SECONDS = Number(root.dataset.ringSeconds) || 30;
  // A ready is sent after this many seconds, so a mistaken tap can be taken back: once sent, the
  // customer has been alerted (page, push, SMS, webhook) and the state rules keep it ready.
  var UNDO_SECONDS = 5;
  // Where a board before IndexedDB kept its credential: read once, then moved.
  var LEGACY_STORE = 'board.credential';
  var FIELDS = 'id number status customerName ringCount readyAt createdAt updatedAt';
  var WAIT = 'wait { waiting oldestWaitingSince medianWaitSeconds alertMinutes }';
  // After a change, the wait is read again once things settle rather than once per event.
  var WAIT_READ_DELAY_MS = 1000;
  var $ = function (selector) {
    return root.querySelector(selector);
  };

  var store = window.boardStore();
  var credential = null;
  var feed = null; // the branch's live tickets, for the credential it was opened with
  var tickets = {}; // as the platform last confirmed them, by id
  var confirmedAt = 0; // when the platform last confirmed them
  var branchName = '';
  var device = null; // the paired device's settings: { numberPrefix, callsWhenOffline }
  var loaded = false; // the branch's tickets read over this socket
  var ringedAt = {};
  var readyTimers = {};
  var renderQueued = false;
  var snapshotTimer = null;
  var audio = null;
  var wait = null; // the branch's live wait, as the graph last answered it
  var waitTimer = null;
  var pairCode = codeFromFragment();

  function legacyCredential() {
    try {
      var value = JSON.parse(window.localStorage.getItem(LEGACY_STORE) || 'null');
      window.localStorage.removeItem(LEGACY_STORE);
      return value;
    } catch {
      // A store another version left behind, or none at all: start from pairing.
      return null;
    }
  }

  function save(value) {
    credential = value;
    if (feed) feed.stop();
    feed = null;
    loaded = false;
    store.save({ credential: value || undefined });
  }

  /** Forgets the board's every trace (a new pairing, leaving, a removed device): answers the changes dropped. */
  function forgetAll() {
    var dropped = sync.forget();
    tickets = {};
    device = null;
    confirmedAt = 0;
    save(null);
    store.clear();
    return dropped;
  }

  function codeFromFragment() {
    var match = /code=([A-Za-z0-9-]+)/.exec(window.location.hash);
    if (!match) return '';
    // The code leaves the address bar at once: it works once, and screenshots should not carry it.
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    return match[1];
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return name in values ? String(values[name]) : whole;
    });
  }

  function show(state) {
    root.dataset.state = state;
    $('.setup').hidden = state !== 'setup';
    $('.work').hidden = state !== 'live' && state !== 'offline';
    $('.leave').hidden = !credential;
  }

  function offline(lost) {
    loaded = loaded && !lost;
    $('.offline').hidden = !lost;
    root.classList.toggle('stale', lost);
    if (lost && root.dataset.state === 'live') show('offline');
    drawConfirmed();
  }

  /** While offline, when the platform last confirmed what the board shows. */
  function drawConfirmed() {
    var text = '';
    if (confirmedAt && root.classList.contains('stale')) {
      var time = new Date(confirmedAt).toLocaleTimeString(lang === 'ar' ? 'ar-IQ' : 'en-GB', {
        hour: '2-digit',
        minute: '2-digit',
      });
      text = fill(words.confirmedAt, { time: time });
    }
    $('.confirmed').textContent = text;
  }

  function notice(message) {
    $('.notice').textContent = message || '';
  }

  var live = window.liveClient({
    url: root.dataset.liveUrl,
    params: function () {
      var params = { 'accept-language': lang };
      if (credential) params.authorization = 'Bearer ' + credential.token;
      if (credential && credential.branchId) params['x-branch-id'] = credential.branchId;
      return params;
    },
    offlineError: words.refusedOffline,
    // The kitchen's changes wait in the queue until the socket is back: the board tries again
    // within 3 s however long the outage, so they reach the platform soon after the line does.
    backoff: { first: 1000, max: 3000 },
    onStatus: function (state, info) {
      if (state === 'connecting') {
        if (!root.classList.contains('stale')) root.dataset.state = 'connecting';
      } else if (state === 'live') {
        sync.connected(info && info.serverTime);
        root.dataset.state = 'syncing';
        offline(false);
      } else offline(true);
    },
    onClose: function (code) {
      // The device was revoked or the session ended: back to pairing, at once.
      if (code === 4403) removed();
    },
    refetch: start,
  });
  var request = live.request;

  var sync = window.boardSync({
    store: store,
    request: request,
    words: words,
    isLive: live.isLive,
    loaded: function () {
      return loaded;
    },
    ticket: function (id) {
      return tickets[id];
    },
    onChange: queueRender,
    onApplied: function (ticket) {
      apply(ticket, true);
    },
    onNotice: notice,
    onRevoked: function () {
      removed();
    },
  });

  /** The platform no longer knows this board: what was waiting is dropped, and said so. */
  function removed() {
    Object.keys(readyTimers).forEach(cancelReady);
    var dropped = forgetAll();
    setupError(dropped > 0 ? fill(words.droppedChanges, { count: dropped }) : words.removed);
    show('setup');
    queueRender();
    live.reconnect();
  }

  function firstError(result) {
    var error = result.errors && result.errors[0];
    if (!error) return '';
    var fields = error.extensions && error.extensions.errors;
    var first = fields && Object.keys(fields)[0];
    return first ? fields[first][0] : error.message;
  }

  function start() {
    if (!credential) {
      show('setup');
      if (pairCode) {
        $('.pair-form input[name=code]').value = pairCode;
        pairCode = '';
        pair();
      }
      return;
    }
    if (credential.kind === 'member' && !credential.branchId) {
      chooseBranch();
      return;
    }
    if (!feed) {
      feed = live.subscribe(
        'subscription { branchTicketsUpdated { ' + FIELDS + ' } }',
        {},
        {
          next: function (payload) {
            if (payload.data) apply(payload.data.branchTicketsUpdated, true);
            queueWaitRead();
          },
        },
      );
    }
    request(
      'query { currentBranch { name ' +
        WAIT +
        ' } currentBoardDevice { numberPrefix callsWhenOffline } waiting: tickets(perPage: 100, filter: { status: WAITING }) { items { ' +
        FIELDS +
        ' } } ready: tickets(perPage: 100, filter: { status: READY }) { items { ' +
        FIELDS +
        ' } } }',
    ).then(loadedBranch);
  }

  /** The branch as the platform has it now: shown, kept for an offline start, then the queue sent. */
  function loadedBranch(result) {
    if (!result.data) {
      if (live.isLive()) notice(firstError(result));
      return;
    }
    drawBranchName(result.data.currentBranch.name);
    wait = result.data.currentBranch.wait;
    device = result.data.currentBoardDevice;
    tickets = {};
    result.data.waiting.items.concat(result.data.ready.items).forEach(function (ticket) {
      apply(ticket, false);
    });
    store.save({ device: device || undefined });
    loaded = true;
    show('live');
    notice('');
    sync.flush();
  }

  function drawBranchName(name) {
    branchName = name;
    var isolated = document.createElement('bdi');
    isolated.textContent = name;
    $('.branch-name').textContent = '· ';
    $('.branch-name').appendChild(isolated);
  }

  function queueWaitRead() {
    if (waitTimer) return;
    waitTimer = setTimeout(function () {
      waitTimer = null;
      request('query { currentBranch { ' + WAIT + ' } }').then(function (result) {
        if (result.data) {
          wait = result.data.currentBranch.wait;
          queueRender();
        }
      });
    }, WAIT_READ_DELAY_MS);
  }

  /** The wait strip: the count, the last hour's median, the oldest's age counted here, the alert. */
  function drawWait(now) {
    var strip = $('.wait');
    if (!wait) {
      strip.hidden = true;
      return;
    }
    var alertSeconds = wait.alertMinutes * 60;
    var oldest = wait.oldestWaitingSince ? (now - Date.parse(wait.oldestWaitingSince)) / 1000 : null;
    var median = wait.medianWaitSeconds;
    strip.hidden = false;
    strip.querySelector('[data-wait=waiting]').textContent = String(wait.waiting);
    strip.querySelector('[data-wait=median]').textContent =
      median === null ? '—' : fill(words.waited, { minutes: Math.round(median / 60) });
    strip.querySelector('[data-wait=oldest]').textContent =
      oldest === null ? '—' : fill(words.waited, { minutes: Math.floor(oldest / 60) });
    var oldestAlert = oldest !== null && oldest >= alertSeconds;
    var medianAlert = median !== null && median >= alertSeconds;
    strip.dataset.alert = String(oldestAlert || medianAlert);
    strip.querySelector('[data-wait=oldest]').closest('div').dataset.alert = String(oldestAlert);
    strip.querySelector('[data-wait=median]').closest('div').dataset.alert = String(medianAlert);
  }

  function setupError(message) {
    $('.setup-error').textContent = message || '';
  }

  function pair() {
    var code = $('.pair-form input[name=code]').value;
    request('mutation ($c: String!) { pairBoardDevice(code: $c) { secret } }', { c: code }).then(
      function (result) {
        if (!result.data) {
          setupError(firstError(result));
          return;
        }
        setupError('');
        save({ kind: 'device', token: result.data.pairBoardDevice.secret });
        live.reconnect();
      },
    );
  }

  function signIn() {
    var form = $('.sign-in-form');
    request('mutation ($i: SignInInput!) { signIn(input: $i) { token } }', {
      i: { email: form.email.value, password: form.password.value, device: 'Staff board' },
    }).then(function (result) {
      if (!result.data) {
        setupError(firstError(result));
        return;
      }
      form.password.value = '';
      setupError('');
      save({ kind: 'member', token: result.data.signIn.token });
      live.reconnect();
    });
  }

  /** The signed-in member's branches: their venues first, then each venue's branches in one query. */
  function chooseBranch() {
    request('query { myVenues { id name } }')
      .then(function (result) {
        if (!result.data) return result;
        var venues = result.data.myVenues;
        if (venues.length === 0) return { data: { venues: [] } };
        var fields = venues.map(function (venue, index) {
          return 'v' + index + ': venue(id: ' + JSON.stringify(venue.id) + ') { name branches { id name } }';
        });
        return request('query { ' + fields.join(' ') + ' }').then(function (answer) {
          if (!answer.data) return answer;
          return {
            data: {
              venues: venues.map(function (venue, index) {
                return answer.data['v' + index];
              }),
            },
          };
        });
      })
      .then(function (result) {
        if (!result.data) {
          save(null);
          setupError(firstError(result));
          live.reconnect();
          return;
        }
        var select = $('.branch-form select');
        select.textContent = '';
        result.data.venues.forEach(function (venue) {
          venue.branches.forEach(function (branch) {
            var option = document.createElement('option');
            option.value = branch.id;
            // An option holds text only: Unicode's isolates keep each name's direction to itself.
            option.textContent = '\u2068' + venue.name + '\u2069 · \u2068' + branch.name + '\u2069';
            select.appendChild(option);
          });
        });
        setupError(select.options.length === 0 ? words.noBranches : '');
        show('setup');
        $('.pair-form').hidden = true;
        $('.sign-in-form').hidden = true;
        $('.or').hidden = true;
        $('.branch-form').hidden = select.options.length === 0;
      });
  }

  function apply(ticket, live) {
    confirmedAt = Date.now();
    keepSnapshot();
    var known = tickets[ticket.id];
    if (ticket.status === 'COLLECTED' || ticket.status === 'CANCELLED') {
      delete tickets[ticket.id];
    } else {
      if (live && known && ticket.ringCount > known.ringCount) ringedAt[ticket.id] = Date.now();
      if (!live && ticket.status === 'READY' && ticket.readyAt) {
        ringedAt[ticket.id] = Date.parse(ticket.updatedAt);
      }
      tickets[ticket.id] = ticket;
    }
    queueRender();
  }

  /** The tickets as last confirmed, kept for a reload or a restart with no connection. */
  function keepSnapshot() {
    if (snapshotTimer) return;
    snapshotTimer = setTimeout(function () {
      snapshotTimer = null;
      store.save({ snapshot: { tickets: tickets, confirmedAt: confirmedAt, branchName: branchName } });
    }, 300);
  }

  function queueRender() {
    if (renderQueued) return;
    renderQueued = true;
    // A timer rather than an animation frame: a board in a background tab stays current too.
    setTimeout(function () {
      renderQueued = false;
      render();
    }, 0);
  }

  /**
   * The buttons a ticket shows now: each as [action, label, disabled]. Rendering updates these in
   * place, so a tap is never lost to a button replaced under the finger by the next tick.
   */
  function actionsOf(ticket, now) {
    var actions = [];
    if (ticket.status === 'WAITING') {
      var timer = readyTimers[ticket.id];
      if (timer) {
        var left = Math.max(1, Math.ceil((timer.at - now) / 1000));
        actions.push(['undo', fill(words.undo, { seconds: left }), false]);
      } else {
        actions.push(['ready', words.markReady, false]);
      }
    } else {
      var wait = RING_SECONDS - Math.floor((now - (ringedAt[ticket.id] || 0)) / 1000);
      actions.push(['ring', wait > 0 ? fill(words.ringIn, { seconds: wait }) : words.ring, wait > 0]);
      actions.push(['collected', words.collected, false]);
    }
    actions.push(['cancel', words.cancel, false]);
    return actions;
  }

  function part(item, className, tag) {
    var element = item.querySelector('.' + className);
    if (!element) {
      element = document.createElement(tag || 'span');
      element.className = className;
      item.appendChild(element);
    }
    return element;
  }

  function drawTicket(item, ticket, now) {
    item.classList.toggle('pending', Boolean(readyTimers[ticket.id]));
    // Shown before the platform has it: done here, waiting in the queue to be sent.
    item.classList.toggle('unsent', Boolean(ticket.pending));
    part(item, 'number', 'bdi').textContent = ticket.number;
    var minutes = Math.max(0, Math.floor((now - Date.parse(ticket.createdAt)) / 60000));
    // A customer's name is isolated: an Arabic name in the English layout (or the reverse) must
    // not pull the separator and the minutes into its own direction.
    var detail = part(item, 'detail');
    var name = part(detail, 'customer', 'bdi');
    name.textContent = ticket.customerName || '';
    part(detail, 'separator').textContent = ticket.customerName ? ' · ' : '';
    part(detail, 'waited').textContent = fill(words.waited, { minutes: minutes });
    var holder = part(item, 'actions');
    var wanted = actionsOf(ticket, now);
    var buttons = holder.querySelectorAll('button');
    var same =
      buttons.length === wanted.length &&
      wanted.every(function (action, index) {
        return buttons[index].dataset.action === action[0];
      });
    if (!same) {
      holder.textContent = '';
      wanted.forEach(function (action) {
        var element = document.createElement('button');
        element.type = 'button';
        element.className = 'action ' + action[0];
        element.dataset.action = action[0];
        element.dataset.id = ticket.id;
        holder.appendChild(element);
      });
      buttons = holder.querySelectorAll('button');
    }
    wanted.forEach(function (action, index) {
      if (buttons[index].textContent !== action[1]) buttons[index].textContent = action[1];
      buttons[index].disabled = action[2];
    });
  }

  function render() {
    var search = $('.search').value.trim().toLowerCase();
    var lists = { WAITING: [], READY: [] };
    var shown = sync.overlay(tickets);
    Object.keys(shown).forEach(function (id) {
      var ticket = shown[id];
      if (search && ticket.number.toLowerCase().indexOf(search) === -1) return;
      lists[ticket.status].push(ticket);
    });
    lists.WAITING.sort(function (a, b) {
      return Date.parse(b.createdAt) - Date.parse(a.createdAt);
    });
    lists.READY.sort(function (a, b) {
      return Date.parse(b.readyAt) - Date.parse(a.readyAt);
    });
    fillList('waiting', lists.WAITING);
    fillList('ready', lists.READY);
    drawWait(Date.now());
    drawSync();
    drawConfirmed();
  }

  /** The changes waiting to be sent and the conflicts, shown whenever either is not zero. */
  function drawSync() {
    var pending = sync.pending();
    var conflicts = sync.conflicts();
    root.dataset.pending = String(pending);
    root.dataset.leased = String(sync.leased());
    root.dataset.conflicts = String(conflicts.length);
    var status = $('.sync-status');
    status.hidden = pending === 0 && conflicts.length === 0;
    status.querySelector('.pending').textContent = pending > 0 ? fill(words.pending, { count: pending }) : '';
    status.querySelector('.conflict-count').textContent =
      conflicts.length > 0 ? fill(words.conflictCount, { count: conflicts.length }) : '';
    var list = $('ul.conflicts');
    if (
      list.dataset.drawn ===
      conflicts
        .map(function (c) {
          return c.id;
        })
        .join()
    )
      return;
    list.dataset.drawn = conflicts
      .map(function (c) {
        return c.id;
      })
      .join();
    list.textContent = '';
    conflicts.forEach(function (conflict) {
      var item = document.createElement('li');
      item.className = 'conflict';
      var said = document.createElement('span');
      said.textContent = conflict.text;
      var dismiss = document.createElement('button');
      dismiss.type = 'button';
      dismiss.dataset.action = 'dismiss';
      dismiss.dataset.id = conflict.id;
      dismiss.textContent = words.dismiss;
      item.appendChild(said);
      item.appendChild(dismiss);
      list.appendChild(item);
    });
  }

  function fillList(name, items) {
    var list = $('ul[data-list=' + name + ']');
    var now = Date.now();
    var existing = {};
    Array.prototype.forEach.call(list.children, function (child) {
      if (child.dataset.id) existing[child.dataset.id] = child;
      else list.removeChild(child);
    });
    $('[data-count=' + name + ']').textContent = String(items.length);
    items.forEach(function (ticket) {
      var item = existing[ticket.id];
      delete existing[ticket.id];
      if (!item) {
        item = document.createElement('li');
        item.className = 'ticket';
        item.dataset.id = ticket.id;
      }
      item.dataset.number = ticket.number;
      drawTicket(item, ticket, now);
      // Appending an element already in the list moves it: order follows without rebuilding.
      list.appendChild(item);
    });
    Object.keys(existing).forEach(function (id) {
      list.removeChild(existing[id]);
    });
    if (items.length === 0) {
      var empty = document.createElement('li');
      empty.className = 'empty';
      empty.textContent = words.empty;
      list.appendChild(empty);
    }
  }

  /** A change to a ticket: queued, shown at once, sent as soon as the socket allows. */
  function act(kind, id) {
    var ticket = sync.overlay(tickets)[id];
    if (!ticket) return;
    notice('');
    if (kind === 'ring') ringedAt[id] = Date.now();
    sync.enqueue(kind, ticket);
    if ((kind === 'ready' || kind === 'ring') && !live.isLive() && device && device.callsWhenOffline) {
      callAloud(ticket.number);
    }
  }

  /** The room cannot hear of a call the platform does not know: the board calls it itself. */
  function callAloud(number) {
    var said = fill(root.dataset.callAr, { number: number });
    root.dataset.calledAloud = String(Number(root.dataset.calledAloud || 0) + 1);
    root.dataset.lastCalledAloud = said;
    if (audio) {
      audio.resume().catch(function () {});
      window.callOut.chime(audio);
    }
    var voice = window.callOut.voiceFor('ar');
    if (!voice) return;
    var utterance = new window.SpeechSynthesisUtterance(said);
    utterance.voice = voice;
    utterance.lang = String(voice.lang).replace('_', '-');
    utterance.rate = 0.9;
    window.setTimeout(
      function () {
        window.speechSynthesis.speak(utterance);
      },
      audio ? 700 : 0,
    );
  }

  /** Browsers let a page sound only after a gesture: every tap on the board is one. */
  function unlockAudio() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) audio = new Context();
  }

  function cancelReady(id) {
    if (!readyTimers[id]) return;
    clearTimeout(readyTimers[id].handle);
    delete readyTimers[id];
    queueRender();
  }

  function startReady(id) {
    readyTimers[id] = {
      at: Date.now() + UNDO_SECONDS * 1000,
      handle: setTimeout(function () {
        delete readyTimers[id];
        act('ready', id);
      }, UNDO_SECONDS * 1000),
    };
    queueRender();
  }

  root.addEventListener('click', function (event) {
    var target = event.target.closest('button[data-action]');
    unlockAudio();
    if (!target) return;
    var id = target.dataset.id;
    var ticket = sync.overlay(tickets)[id];
    var action = target.dataset.action;
    if (action === 'ready') startReady(id);
    else if (action === 'undo') cancelReady(id);
    else if (action === 'dismiss') sync.dismiss(id);
    else if (action === 'ring' || action === 'collected') act(action, id);
    else if (
      action === 'cancel' &&
      ticket &&
      window.confirm(fill(words.confirmCancel, { number: ticket.number }))
    ) {
      act('cancel', id);
    }
  });

  $('.pair-form').addEventListener('submit', function (event) {
    event.preventDefault();
    pair();
  });

  $('.sign-in-form').addEventListener('submit', function (event) {
    event.preventDefault();
    signIn();
  });

  $('.branch-form').addEventListener('submit', function (event) {
    event.preventDefault();
    save({ kind: 'member', token: credential.token, branchId: $('.branch-form select').value });
    live.reconnect();
  });

  $('.new-ticket').addEventListener('submit', function (event) {
    event.preventDefault();
    var form = event.target;
    var input = {};
    ['number', 'customerName', 'customerPhone'].forEach(function (name) {
      var value = form[name].value.trim();
      if (value) input[name] = value;
    });
    // Online the platform numbers it; offline it takes the next number this board holds.
    var taken = null;
    if (!input.number && !live.isLive()) {
      taken = sync.takeNumber();
      if (!taken) {
        notice(words.noNumbers);
        return;
      }
      input.number = taken.number;
      notice(taken.leased ? '' : fill(words.prefixNumbers, { number: taken.number }));
    } else notice('');
    var key = 'local:' + String(Date.now()) + Math.random().toString(36).slice(2, 8);
    form.reset();
    sync.enqueue('create', { id: key, number: input.number || '' }, input, taken && taken.taken);
  });

  $('.search').addEventListener('input', queueRender);

  $('.leave').addEventListener('click', function () {
    forgetAll();
    $('.pair-form').hidden = false;
    $('.sign-in-form').hidden = false;
    $('.or').hidden = false;
    $('.branch-form').hidden = true;
    live.reconnect();
  });

  // Countdowns (undo, ring) and waiting times move on their own.
  setInterval(function () {
    if (Object.keys(tickets).length > 0) queueRender();
  }, 1000);
  window.addEventListener('online', live.connect);

  /** What the board knew before this load: shown at once, before any connection is tried. */
  function boot(values) {
    credential = values.credential || legacyCredential();
    // Opening a pairing link pairs this tablet anew, whatever it was paired or signed in as before.
    if (pairCode) {
      forgetAll();
      return;
    }
    if (credential) store.save({ credential: credential });
    device = values.device || null;
    var snapshot = values.snapshot;
    if (credential && snapshot) {
      tickets = snapshot.tickets || {};
      confirmedAt = snapshot.confirmedAt || 0;
      if (snapshot.branchName) drawBranchName(snapshot.branchName);
      show('offline');
      offline(true);
    }
    queueRender();
  }

  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register(root.dataset.worker, { scope: '/board' }).catch(function () {
      // No worker (a private window, an old browser): the board works while online as before.
    });
  }
  show('connecting');
  store
    .load(['credential', 'device', 'snapshot', 'lease', 'offset', 'conflicts', 'series', 'ids'])
    .then(function (values) {
      return sync.restore(values).then(function () {
        boot(values);
      });
    })
    .catch(function () {
      // IndexedDB refused (a private window): the board works online, remembering nothing.
    })
    .then(function () {
      live.connect();
    });
})();
