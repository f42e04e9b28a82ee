/*
 * The public pages' one live client (ticket page, staff board, room display): graphql-ws over one
 * socket to the gateway. The gateway keeps nothing for an absent subscriber, so after every
 * acknowledged connection the client sends the page's subscriptions again and then runs the page's
 * refetch: what changed while offline is read, not lost. A lost socket is retried after a jittered
 * delay that doubles up to a cap. ES2019 at most, no framework: old TV browsers load it as written.
 */
(function () {
  'use strict';

  /**
   * What one client holds: its options, its socket (open or opening; null while offline), the
   * operations asked on that socket by id, and the subscriptions sent again on every socket.
   */
  function newClient(options) {
    return {
      options: options,
      first: (options.backoff && options.backoff.first) || 1000,
      max: (options.backoff && options.backoff.max) || 30000,
      socket: null,
      acked: false,
      stopped: false,
      retries: 0,
      retryTimer: null,
      heartbeatTimer: null,
      answered: true,
      nextId: 1,
      operations: {},
      standing: [],
    };
  }

  function status(client, name, info) {
    if (client.options.onStatus) client.options.onStatus(name, info);
  }

  function send(client, message) {
    if (client.socket && client.socket.readyState === 1) client.socket.send(JSON.stringify(message));
  }

  function refusal(client) {
    return { errors: [{ message: client.options.offlineError || 'offline' }] };
  }

  function start(client, subscription) {
    var id = String(client.nextId++);
    subscription.id = id;
    client.operations[id] = subscription.handlers;
    send(client, { id: id, type: 'subscribe', payload: subscription.payload });
  }

  /** An acknowledged socket: live, the subscriptions sent again, then the page's refetch. */
  function acknowledged(client, payload) {
    client.acked = true;
    if (client.options.ackResetsBackoff !== false) client.retries = 0;
    beat(client);
    status(client, 'live', payload || {});
    // The page may have given the socket up from its status handler.
    if (!client.acked) return;
    client.standing.forEach(function (subscription) {
      start(client, subscription);
    });
    if (client.options.refetch) client.options.refetch();
  }

  function receive(client, message) {
    var operation = message.id !== undefined ? client.operations[message.id] : undefined;
    if (message.type === 'connection_ack') {
      acknowledged(client, message.payload);
    } else if (message.type === 'next') {
      if (operation && operation.next) operation.next(message.payload || {});
    } else if (message.type === 'error' || message.type === 'complete') {
      if (!operation) return;
      delete client.operations[message.id];
      if (message.type === 'error' && operation.error) operation.error(message.payload || []);
      if (message.type === 'complete' && operation.complete) operation.complete();
    } else if (message.type === 'ping') {
      send(client, { type: 'pong' });
    } else if (message.type === 'pong') {
      client.answered = true;
    }
  }

  function beat(client) {
    if (!client.options.heartbeat) return;
    client.answered = true;
    client.heartbeatTimer = setInterval(function () {
      if (!client.answered) return drop(client);
      client.answered = false;
      send(client, { type: 'ping' });
    }, client.options.heartbeat);
  }

  /** Forgets the current socket: what was asked on it is answered with a refusal. */
  function detach(client) {
    var cut = client.operations;
    client.socket = null;
    client.acked = false;
    client.operations = {};
    clearInterval(client.heartbeatTimer);
    client.heartbeatTimer = null;
    Object.keys(cut).forEach(function (id) {
      if (cut[id].refuse) cut[id].refuse();
    });
  }

  function open(client) {
    clearTimeout(client.retryTimer);
    client.retryTimer = null;
    var params = client.options.params ? client.options.params() : {};
    var ws = (client.socket = new WebSocket(client.options.url, 'graphql-transport-ws'));
    status(client, 'connecting');
    ws.onopen = function () {
      if (ws === client.socket) send(client, { type: 'connection_init', payload: params });
    };
    ws.onmessage = function (event) {
      if (ws === client.socket) receive(client, JSON.parse(event.data));
    };
    // Every error is followed by a close, which is where a lost socket is handled.
    ws.onerror = function () {};
    ws.onclose = function (event) {
      lost(client, ws, event.code);
    };
  }

  function lost(client, ws, code) {
    if (ws !== client.socket) return;
    detach(client);
    if (client.stopped) return;
    var delay = client.options.onClose ? client.options.onClose(code) : undefined;
    // The page stopped, or started over at once (a board sent back to pairing).
    if (client.stopped || client.socket) return;
    if (typeof delay !== 'number') {
      delay = Math.min(client.max, client.first * Math.pow(2, client.retries++)) * (0.5 + Math.random() / 2);
    }
    client.retryTimer = setTimeout(function () {
      open(client);
    }, delay);
    status(client, 'offline', { code: code, delay: delay });
  }

  /** Gives up the current socket as lost, as if it had closed abnormally (1006). */
  function drop(client) {
    var ws = client.socket;
    if (!ws) return;
    lost(client, ws, 1006);
    ws.close();
  }

  /** Starts over on a fresh socket now (a new credential), keeping the subscriptions. */
  function reconnect(client) {
    var old = client.socket;
    detach(client);
    if (old) old.close();
    if (!client.stopped) open(client);
  }

  /** Closes for good: no retry, no status; requests still waiting are refused. */
  function stop(client) {
    var old = client.socket;
    client.stopped = true;
    clearTimeout(client.retryTimer);
    detach(client);
    if (old) old.close();
  }

  /** A subscription kept across sockets; answers { stop() }, which ends it on every socket. */
  function subscribe(client, query, variables, handlers) {
    var subscription = {
      payload: { query: query, variables: variables || {} },
      handlers: handlers,
      id: null,
    };
    client.standing.push(subscription);
    if (client.acked) start(client, subscription);
    return {
      stop: function () {
        client.standing = client.standing.filter(function (other) {
          return other !== subscription;
        });
        if (subscription.id !== null && client.operations[subscription.id]) {
          delete client.operations[subscription.id];
          send(client, { id: subscription.id, type: 'complete' });
        }
        subscription.id = null;
      },
    };
  }

  /** A query or mutation over the socket, settled once by its answer or by a refusal. */
  function request(client, query, variables) {
    return new Promise(function (resolve) {
      if (!client.acked) {
        resolve(refusal(client));
        return;
      }
      var id = String(client.nextId++);
      var settle = function (result) {
        delete client.operations[id];
        resolve(result);
      };
      client.operations[id] = {
        next: settle,
        error: function (errors) {
          settle({ errors: errors });
        },
        complete: function () {
          settle({});
        },
        refuse: function () {
          settle(refusal(client));
        },
      };
      send(client, { id: id, type: 'subscribe', payload: { query: query, variables: variables || {} } });
    });
  }

  /**
   * options (all but url optional):
   *   url                the gateway's graphql-ws URL
   *   params()           the connection_init payload, read for every socket (a credential changes)
   *   refetch()          runs after every acknowledged connection, once subscriptions are sent
   *   onStatus(s, info)  'connecting' (a socket opens), 'live' (acknowledged: info is the
   *                      acknowledgement's payload, { serverTime }), 'offline' (lost, a retry
   *                      planned: info is { code, delay })
   *   onClose(code)      runs first when a socket is lost; it may stop() or reconnect() the client,
   *                      or answer the delay in ms before the retry instead of the backoff's
   *   offlineError       the message of a request refused or cut off for want of a socket
   *   heartbeat          ms between the client's pings; a ping unanswered by the next is a socket
   *                      lost (a TV's Wi-Fi can vanish without the socket noticing)
   *   backoff            { first: 1000, max: 30000 }: the first retry's delay and the cap
   *   ackResetsBackoff   false when the page decides a connection is whole (resetBackoff())
   * Every method may be called unbound (pages hand them to event listeners) and ignores arguments
   * it does not name.
   */
  function liveClient(options) {
    var client = newClient(options);
    return {
      /** Opens a socket now unless one is open or opening; a planned retry is brought forward. */
      connect: function () {
        if (!client.stopped && !client.socket) open(client);
      },
      reconnect: function () {
        reconnect(client);
      },
      drop: function () {
        drop(client);
      },
      stop: function () {
        stop(client);
      },
      resetBackoff: function () {
        client.retries = 0;
      },
      isLive: function () {
        return client.acked;
      },
      /**
       * handlers: next(payload), error(errors), complete(); an error or complete ends the
       * subscription on this socket only.
       */
      subscribe: function (query, variables, handlers) {
        return subscribe(client, query, variables, handlers);
      },
      /**
       * Resolves (never rejects) with the result, { data, errors }, or with a refusal when there is
       * no acknowledged socket or it is lost meanwhile.
       */
      request: function (query, variables) {
        return request(client, query, variables);
      },
    };
  }

  window.liveClient = liveClient;
})();
