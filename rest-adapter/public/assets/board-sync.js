/*
 * The staff board's queue of changes: every action (create, ready, collected, cancel, ring) is
 * written to IndexedDB first, shown at once, and sent in the order it happened through the same
 * graph operations as ever, one at a time, each with an idempotency key, so a change whose answer
 * was lost is sent again without being applied twice. A change made while the platform could not
 * be reached also carries when it happened (`occurredAt`), by this tablet's clock corrected by its
 * offset from the gateway's at the last connection. ES2019 at most, no framework.
 */
(function () {
  'use strict';
  var FIELDS = 'id number status customerName ringCount readyAt createdAt updatedAt';
  // A ring queued offline and older than this helps no one: it is not sent.
  var RING_STALE_MS = 2 * 60 * 1000;
  // A change sent later than this after it was made carries its moment.
  var LATE_MS = 3000;
  // Numbers reserved for offline creations, and how few left asks for more while online.
  var LEASE_COUNT = 20;
  var LEASE_LOW = 10;
  var MOVES = {
    ready: { field: 'markTicketReady', status: 'READY' },
    collected: { field: 'markTicketCollected', status: 'COLLECTED' },
    cancel: { field: 'cancelTicket', status: 'CANCELLED' },
  };

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    var bytes = window.crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map
      .call(bytes, function (byte) {
        return (byte + 256).toString(16).slice(1);
      })
      .join('');
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return name in values ? String(values[name]) : whole;
    });
  }

  function codeOf(result) {
    var error = result.errors && result.errors[0];
    return (error && error.extensions && error.extensions.code) || '';
  }

  function reasonOf(result) {
    var error = result.errors && result.errors[0];
    if (!error) return '';
    var fields = error.extensions && error.extensions.errors;
    var first = fields && Object.keys(fields)[0];
    return first ? fields[first][0] : error.message;
  }

  /**
   * options: store (boardStore), request(query, variables), isLive(), words, onChange() after
   * anything shown changed, onApplied(ticket) for each ticket the platform answered, onNotice(text)
   * for a change made online and refused, onRevoked(count) when the platform no longer knows the
   * board's credential.
   */
  function boardSync(options) {
    var sync = {
      options: options,
      queue: [],
      ids: {}, // a ticket created here, by its local id → the platform's id for it
      conflicts: [],
      lease: null, // { day, validUntil, prefix, numbers }
      series: 0, // the last number of the device's own prefixed series
      offset: 0, // the gateway's clock less this tablet's, in ms
      flushing: false,
      leasing: false,
      retryTimer: null,
    };
    return {
      restore: function (values) {
        return restore(sync, values);
      },
      connected: function (serverTime) {
        connected(sync, serverTime);
      },
      enqueue: function (kind, ticket, input, taken) {
        return enqueue(sync, kind, ticket, input, taken);
      },
      takeNumber: function () {
        return takeNumber(sync);
      },
      flush: function () {
        flush(sync);
      },
      overlay: function (tickets) {
        return overlay(sync, tickets);
      },
      pending: function () {
        return sync.queue.length;
      },
      /** The leased numbers still usable for creating offline. */
      leased: function () {
        return usableNumbers(sync).length;
      },
      conflicts: function () {
        return sync.conflicts;
      },
      dismiss: function (id) {
        sync.conflicts = sync.conflicts.filter(function (conflict) {
          return conflict.id !== id;
        });
        options.store.save({ conflicts: sync.conflicts });
        options.onChange();
      },
      forget: function () {
        var dropped = sync.queue.length;
        sync.queue = [];
        sync.conflicts = [];
        sync.ids = {};
        sync.lease = null;
        return dropped;
      },
    };
  }

  function restore(sync, values) {
    sync.ids = values.ids || {};
    sync.conflicts = values.conflicts || [];
    sync.lease = values.lease || null;
    sync.series = values.series || 0;
    sync.offset = values.offset || 0;
    return sync.options.store.queued().then(function (queue) {
      sync.queue = queue;
    });
  }

  /** The gateway's clock, as its acknowledgement just gave it: the offset every change keeps. */
  function connected(sync, serverTime) {
    var server = Date.parse(serverTime || '');
    if (server) {
      sync.offset = server - Date.now();
      sync.options.store.save({ offset: sync.offset });
    }
  }

  /** `taken`: the state a creation's number uses up (takeNumber's), written with the change. */
  function enqueue(sync, kind, ticket, input, taken) {
    var change = {
      kind: kind,
      key: newKey(),
      at: Date.now(),
      offset: sync.offset,
      offline: !sync.options.isLive(),
      ticket: ticket.id,
      number: ticket.number,
      input: input || null,
    };
    var values = taken || {};
    return sync.options.store.enqueue(change, values).then(function (queued) {
      if (values.lease) sync.lease = values.lease;
      if (values.series) sync.series = values.series;
      sync.queue.push(queued);
      sync.options.onChange();
      flush(sync);
      return queued;
    });
  }

  /**
   * The number of a ticket created offline: the next of the branch's leased numbers, or once they
   * run out, the next of the device's own series under the prefix the venue set; null when there
   * is neither. `taken` is what the creation's write keeps, so the number is never given twice.
   */
  function takeNumber(sync) {
    var lease = sync.lease;
    var numbers = usableNumbers(sync);
    if (numbers.length > 0) {
      var rest = {
        day: lease.day,
        validUntil: lease.validUntil,
        prefix: lease.prefix,
        numbers: numbers.slice(1),
      };
      return { number: numbers[0], leased: true, taken: { lease: rest } };
    }
    if (!lease || !lease.prefix) return null;
    return {
      number: lease.prefix + String(sync.series + 1),
      leased: false,
      taken: { series: sync.series + 1 },
    };
  }

  /** The leased numbers still usable now: none once the lease's venue day has ended. */
  function usableNumbers(sync) {
    var lease = sync.lease;
    return lease && Date.parse(lease.validUntil) > Date.now() + sync.offset ? lease.numbers : [];
  }

  /** The platform's tickets with the queued changes applied on top: what the board shows. */
  function overlay(sync, tickets) {
    var view = {};
    Object.keys(tickets).forEach(function (id) {
      view[id] = tickets[id];
    });
    sync.queue.forEach(function (change) {
      var id = idOf(sync, change.ticket);
      if (change.kind === 'create') {
        if (sync.ids[change.ticket]) return;
        var at = new Date(change.at).toISOString();
        view[change.ticket] = {
          id: change.ticket,
          number: change.number || '…',
          status: 'WAITING',
          customerName: change.input.customerName || null,
          ringCount: 0,
          readyAt: null,
          createdAt: at,
          updatedAt: at,
          pending: true,
        };
        return;
      }
      var ticket = view[id];
      if (!ticket || change.kind === 'ring') return;
      if (change.kind !== 'ready') {
        delete view[id];
        return;
      }
      var ready = {};
      Object.keys(ticket).forEach(function (name) {
        ready[name] = ticket[name];
      });
      ready.status = 'READY';
      ready.readyAt = new Date(change.at).toISOString();
      ready.pending = true;
      view[id] = ready;
    });
    return view;
  }

  /** A ticket created on this board is known by its creation's key until the platform numbers it. */
  function idOf(sync, ticket) {
    if (String(ticket).indexOf('local:') !== 0) return ticket;
    return sync.ids[ticket] || ticket;
  }

  /** Sends the oldest change, then the next, while the socket is live. */
  function flush(sync) {
    if (sync.flushing || !sync.options.isLive() || !sync.options.loaded()) return;
    var change = sync.queue[0];
    if (!change) {
      renewLease(sync);
      return;
    }
    sync.flushing = true;
    send(sync, change).then(function (outcome) {
      sync.flushing = false;
      if (outcome.wait) {
        if (outcome.retryMs) {
          clearTimeout(sync.retryTimer);
          sync.retryTimer = setTimeout(function () {
            flush(sync);
          }, outcome.retryMs);
        }
        return;
      }
      settle(sync, change, outcome).then(function () {
        flush(sync);
      });
    });
  }

  function settle(sync, change, outcome) {
    var values = {};
    if (outcome.ticket && change.kind === 'create') {
      sync.ids[change.ticket] = outcome.ticket.id;
      values.ids = sync.ids;
    }
    if (outcome.conflict) {
      sync.conflicts = sync.conflicts.concat([{ id: change.key, text: outcome.conflict }]);
      values.conflicts = sync.conflicts;
    }
    return sync.options.store.settle(change.seq, values).then(function () {
      sync.queue = sync.queue.filter(function (queued) {
        return queued.seq !== change.seq;
      });
      if (outcome.ticket) sync.options.onApplied(outcome.ticket);
      if (outcome.notice) sync.options.onNotice(outcome.notice);
      sync.options.onChange();
    });
  }

  /** When a change happened, by the gateway's clock: sent for one made offline or sent late. */
  function occurredAt(change) {
    if (!change.offline && Date.now() - change.at < LATE_MS) return null;
    return new Date(change.at + change.offset).toISOString();
  }

  /** One change over the socket; answers what became of it (`wait`: it stays first in the queue). */
  function send(sync, change) {
    if (change.kind === 'create') return sendCreate(sync, change);
    var id = idOf(sync, change.ticket);
    if (String(id).indexOf('local:') === 0) {
      // Its creation was refused: there is no ticket to move.
      return Promise.resolve({
        conflict: fill(sync.options.words.conflictNotCreated, { number: change.number }),
      });
    }
    if (change.kind === 'ring') return sendRing(sync, change, id);
    var move = MOVES[change.kind];
    var query =
      'mutation ($id: ID, $k: String, $at: DateTimeISO) { ' +
      move.field +
      '(id: $id, idempotencyKey: $k, occurredAt: $at) { ' +
      FIELDS +
      ' } }';
    return sync.options
      .request(query, { id: id, k: change.key, at: occurredAt(change) })
      .then(function (result) {
        if (result.data && result.data[move.field]) return { ticket: result.data[move.field] };
        return refused(sync, change, result, id);
      });
  }

  function sendCreate(sync, change) {
    var query =
      'mutation ($i: CreateTicketInput!, $k: String, $at: DateTimeISO) { createTicket(input: $i, idempotencyKey: $k, occurredAt: $at) { ticket { ' +
      FIELDS +
      ' } } }';
    return sync.options
      .request(query, { i: change.input, k: change.key, at: occurredAt(change) })
      .then(function (result) {
        if (result.data && result.data.createTicket) return { ticket: result.data.createTicket.ticket };
        return refused(sync, change, result, null);
      });
  }

  /** A ring goes only while it can still help: the ticket ready, the tap under two minutes old. */
  function sendRing(sync, change, id) {
    var words = sync.options.words;
    var ticket = sync.options.ticket(id);
    if (Date.now() - change.at > RING_STALE_MS) {
      return Promise.resolve({ conflict: fill(words.ringStale, { number: change.number }) });
    }
    if (!ticket || ticket.status !== 'READY') {
      return Promise.resolve({ conflict: fill(words.ringNotReady, { number: change.number }) });
    }
    return sync.options
      .request('mutation ($id: ID) { ringTicket(id: $id) { ' + FIELDS + ' } }', { id: id })
      .then(function (result) {
        if (result.data && result.data.ringTicket) return { ticket: result.data.ringTicket };
        return refused(sync, change, result, id);
      });
  }

  /**
   * A change the platform did not apply: kept for later when the socket went (or the budget said
   * wait), the whole queue dropped when the credential is gone, else a conflict in words.
   */
  function refused(sync, change, result, id) {
    var code = codeOf(result);
    if (!sync.options.isLive()) return { wait: true };
    // A ring refused as too soon after the last alert is the ring's own rule, not the budget's.
    if (code === 'RATE_LIMITED' && change.kind !== 'ring') {
      var error = result.errors[0];
      var seconds = Number(error.extensions.retryAfter) || 2;
      return { wait: true, retryMs: seconds * 1000 };
    }
    if (code === 'UNAUTHENTICATED') {
      sync.options.onRevoked();
      return { wait: true };
    }
    if (!change.offline) return { notice: reasonOf(result) };
    if (id === null || change.kind === 'ring')
      return { conflict: conflictText(sync, change, null, reasonOf(result)) };
    return sync.options
      .request('query ($id: ID!) { ticket(id: $id) { ' + FIELDS + ' } }', { id: id })
      .then(function (read) {
        var now = read.data && read.data.ticket;
        // Another board or the till did the same meanwhile: what the change wanted holds.
        if (now && now.status === MOVES[change.kind].status) return { ticket: now };
        return { ticket: now || undefined, conflict: conflictText(sync, change, now, reasonOf(result)) };
      });
  }

  function conflictText(sync, change, now, reason) {
    var words = sync.options.words;
    var values = { number: change.number, reason: reason };
    if (change.kind === 'create') return fill(words.conflictCreate, values);
    if (now && now.status === 'CANCELLED') return fill(words.conflictCancelled, values);
    if (now && now.status === 'COLLECTED') return fill(words.conflictCollected, values);
    return fill(words.conflictRefused, values);
  }

  /** Keeps numbers in hand for creating offline; a refusal is tried again at the next connection. */
  function renewLease(sync) {
    if (sync.leasing || usableNumbers(sync).length >= LEASE_LOW) return;
    sync.leasing = true;
    sync.options
      .request('mutation ($n: Int) { reserveTicketNumbers(count: $n) { numbers day validUntil prefix } }', {
        n: LEASE_COUNT,
      })
      .then(function (result) {
        sync.leasing = false;
        if (!result.data) return;
        var fresh = result.data.reserveTicketNumbers;
        // The numbers held when the answer comes, not when it was asked: none is ever given twice.
        var kept = sync.lease && sync.lease.day === fresh.day ? usableNumbers(sync) : [];
        sync.lease = {
          day: fresh.day,
          validUntil: fresh.validUntil,
          prefix: fresh.prefix,
          numbers: kept.concat(fresh.numbers),
        };
        sync.options.store.save({ lease: sync.lease });
        sync.options.onChange();
      });
  }

  window.boardSync = boardSync;
})();
