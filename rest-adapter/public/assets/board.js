/*
 * The staff board. Every read and every action goes over one graphql-ws socket to the gateway, so
 * when the socket is down the board says so, keeps the last state marked stale, and refuses
 * actions instead of queueing them. ES2019 at most, no framework: tablets of every age run it.
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
  var STORE = 'board.credential';
  var FIELDS = 'id number status customerName ringCount readyAt createdAt updatedAt';
  var WAIT = 'wait { waiting oldestWaitingSince medianWaitSeconds alertMinutes }';
  // After a change, the wait is read again once things settle rather than once per event.
  var WAIT_READ_DELAY_MS = 1000;
  var $ = function (selector) {
    return root.querySelector(selector);
  };

  var credential = load();
  var feed = null; // the branch's live tickets, for the credential it was opened with
  var tickets = {};
  var ringedAt = {};
  var readyTimers = {};
  var renderQueued = false;
  var wait = null; // the branch's live wait, as the graph last answered it
  var waitTimer = null;
  var pairCode = codeFromFragment();
  // Opening a pairing link pairs this tablet anew, whatever it was paired or signed in as before.
  if (pairCode) save(null);

  function load() {
    try {
      return JSON.parse(window.localStorage.getItem(STORE) || 'null');
    } catch {
      // A store another version left behind, or none at all: start from pairing.
      return null;
    }
  }

  function save(value) {
    credential = value;
    if (feed) feed.stop();
    feed = null;
    if (value) window.localStorage.setItem(STORE, JSON.stringify(value));
    else window.localStorage.removeItem(STORE);
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
    $('.offline').hidden = !lost;
    root.classList.toggle('stale', lost);
    if (lost && root.dataset.state === 'live') show('offline');
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
    onStatus: function (state) {
      if (state === 'connecting') root.dataset.state = 'connecting';
      else if (state === 'live') {
        root.dataset.state = 'syncing';
        offline(false);
      } else offline(true);
    },
    onClose: function (code) {
      Object.keys(readyTimers).forEach(cancelReady);
      if (code === 4403) {
        // The device was revoked or the session ended: back to pairing, at once.
        save(null);
        tickets = {};
        setupError(words.removed);
        live.reconnect();
      }
    },
    refetch: start,
  });
  var request = live.request;

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
        ' } waiting: tickets(perPage: 100, filter: { status: WAITING }) { items { ' +
        FIELDS +
        ' } } ready: tickets(perPage: 100, filter: { status: READY }) { items { ' +
        FIELDS +
        ' } } }',
    ).then(function (result) {
      if (!result.data) {
        notice(firstError(result));
        return;
      }
      var branchName = document.createElement('bdi');
      branchName.textContent = result.data.currentBranch.name;
      $('.branch-name').textContent = '· ';
      $('.branch-name').appendChild(branchName);
      wait = result.data.currentBranch.wait;
      tickets = {};
      result.data.waiting.items.concat(result.data.ready.items).forEach(function (ticket) {
        apply(ticket, false);
      });
      show('live');
      notice('');
    });
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
    Object.keys(tickets).forEach(function (id) {
      var ticket = tickets[id];
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

  function act(mutation, id) {
    return request('mutation ($id: ID) { ' + mutation + '(id: $id) { ' + FIELDS + ' } }', { id: id }).then(
      function (result) {
        if (!result.data) {
          notice(firstError(result));
          return;
        }
        notice('');
        apply(result.data[mutation], true);
      },
    );
  }

  function cancelReady(id) {
    if (!readyTimers[id]) return;
    clearTimeout(readyTimers[id].handle);
    delete readyTimers[id];
    queueRender();
  }

  function startReady(id) {
    if (root.dataset.state !== 'live') {
      notice(words.refusedOffline);
      return;
    }
    readyTimers[id] = {
      at: Date.now() + UNDO_SECONDS * 1000,
      handle: setTimeout(function () {
        delete readyTimers[id];
        act('markTicketReady', id);
      }, UNDO_SECONDS * 1000),
    };
    queueRender();
  }

  root.addEventListener('click', function (event) {
    var target = event.target.closest('button[data-action]');
    if (!target) return;
    var id = target.dataset.id;
    var ticket = tickets[id];
    var action = target.dataset.action;
    if (action === 'ready') startReady(id);
    else if (action === 'undo') cancelReady(id);
    else if (action === 'ring') act('ringTicket', id);
    else if (action === 'collected') act('markTicketCollected', id);
    else if (
      action === 'cancel' &&
      ticket &&
      window.confirm(fill(words.confirmCancel, { number: ticket.number }))
    ) {
      act('cancelTicket', id);
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
    request('mutation ($i: CreateTicketInput!) { createTicket(input: $i) { ticket { ' + FIELDS + ' } } }', {
      i: input,
    }).then(function (result) {
      if (!result.data) {
        notice(firstError(result));
        return;
      }
      notice('');
      form.reset();
      apply(result.data.createTicket.ticket, true);
    });
  });

  $('.search').addEventListener('input', queueRender);

  $('.leave').addEventListener('click', function () {
    save(null);
    tickets = {};
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

  show('connecting');
  live.connect();
})();
