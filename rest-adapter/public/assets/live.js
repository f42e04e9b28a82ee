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
   * options (all but url optional):
   *   url                the gateway's graphql-ws URL
   *   params()           the connection_init payload, read for every socket (a credential changes)
   *   refetch()          runs after every acknowledged connection, once subscriptions are sent
   *   onStatus(s, info)  'connecting' (a socket opens), 'live' (acknowledged), 'offline' (lost,
   *                      a retry planned: info is { code, delay })
   *   onClose(code)      runs first when a socket is lost; it may stop() or reconnect() the client,
   *                      or answer the delay in ms before the retry instead of the backoff's
   *   offlineError       the message of a request refused or cut off for want of a socket
   *   heartbeat          ms between the client's pings; a ping unanswered by the next is a socket
   *                      lost (a TV's Wi-Fi can vanish without the socket noticing)
   *   backoff            { first: 1000, max: 30000 }: the first retry's delay and the cap
   *   ackResetsBackoff   false when the page decides a connection is whole (resetBackoff())
   */
  function liveClient(options) {
    var first = (options.backoff && options.backoff.first) || 1000;
    var max = (options.backoff && options.backoff.max) || 30000;
    var socket = null; // open or opening; null while offline
    var acked = false;
    var stopped = false;
    var retries = 0;
    var retryTimer = null;
    var heartbeatTimer = null;
    var answered = true;
    var nextId = 1;
    var operations = {}; // by id, on the current socket only
    var standing = []; // subscriptions, sent again on every socket

    function status(name, info) {
      if (options.onStatus) options.onStatus(name, info);
    }

    function send(message) {
      if (socket && socket.readyState === 1) socket.send(JSON.stringify(message));
    }

    function refusal() {
      return { errors: [{ message: options.offlineError || 'offline' }] };
    }

    function start(subscription) {
      var id = String(nextId++);
      subscription.id = id;
      operations[id] = subscription.handlers;
      send({ id: id, type: 'subscribe', payload: subscription.payload });
    }

    function receive(message) {
      var operation = message.id !== undefined ? operations[message.id] : undefined;
      if (message.type === 'connection_ack') {
        acked = true;
        if (options.ackResetsBackoff !== false) retries = 0;
        beat();
        status('live');
        // The page may have given the socket up from its status handler.
        if (!acked) return;
        standing.forEach(start);
        if (options.refetch) options.refetch();
      } else if (message.type === 'next') {
        if (operation && operation.next) operation.next(message.payload || {});
      } else if (message.type === 'error' || message.type === 'complete') {
        if (!operation) return;
        delete operations[message.id];
        if (message.type === 'error' && operation.error) operation.error(message.payload || []);
        if (message.type === 'complete' && operation.complete) operation.complete();
      } else if (message.type === 'ping') {
        send({ type: 'pong' });
      } else if (message.type === 'pong') {
        answered = true;
      }
    }

    function beat() {
      if (!options.heartbeat) return;
      answered = true;
      heartbeatTimer = setInterval(function () {
        if (!answered) return drop();
        answered = false;
        send({ type: 'ping' });
      }, options.heartbeat);
    }

    /** Forgets the current socket: what was asked on it is answered with a refusal. */
    function detach() {
      var cut = operations;
      socket = null;
      acked = false;
      operations = {};
      clearInterval(heartbeatTimer);
      heartbeatTimer = null;
      Object.keys(cut).forEach(function (id) {
        if (cut[id].refuse) cut[id].refuse();
      });
    }

    function open() {
      clearTimeout(retryTimer);
      retryTimer = null;
      var params = options.params ? options.params() : {};
      var ws = (socket = new WebSocket(options.url, 'graphql-transport-ws'));
      status('connecting');
      ws.onopen = function () {
        if (ws === socket) send({ type: 'connection_init', payload: params });
      };
      ws.onmessage = function (event) {
        if (ws === socket) receive(JSON.parse(event.data));
      };
      // Every error is followed by a close, which is where a lost socket is handled.
      ws.onerror = function () {};
      ws.onclose = function (event) {
        lost(ws, event.code);
      };
    }

    function lost(ws, code) {
      if (ws !== socket) return;
      detach();
      if (stopped) return;
      var delay = options.onClose ? options.onClose(code) : undefined;
      // The page stopped, or started over at once (a board sent back to pairing).
      if (stopped || socket) return;
      if (typeof delay !== 'number') {
        delay = Math.min(max, first * Math.pow(2, retries++)) * (0.5 + Math.random() / 2);
      }
      retryTimer = setTimeout(open, delay);
      status('offline', { code: code, delay: delay });
    }

    /** Gives up the current socket as lost, as if it had closed abnormally (1006). */
    function drop() {
      var ws = socket;
      if (!ws) return;
      lost(ws, 1006);
      ws.close();
    }

    return {
      /** Opens a socket now unless one is open or opening; a planned retry is brought forward. */
      connect: function () {
        if (!stopped && !socket) open();
      },
      /** Starts over on a fresh socket now (a new credential), keeping the subscriptions. */
      reconnect: function () {
        var old = socket;
        detach();
        if (old) old.close();
        if (!stopped) open();
      },
      drop: drop,
      /** Closes for good: no retry, no status; requests still waiting are refused. */
      stop: function () {
        var old = socket;
        stopped = true;
        clearTimeout(retryTimer);
        detach();
        if (old) old.close();
      },
      resetBackoff: function () {
        retries = 0;
      },
      isLive: function () {
        return acked;
      },
      /**
       * A subscription kept across sockets. handlers: next(payload), error(errors), complete(); an
       * error or complete ends it on this socket only. Answers { stop() }.
       */
      subscribe: function (query, variables, handlers) {
        var subscription = {
          payload: { query: query, variables: variables || {} },
          handlers: handlers,
          id: null,
        };
        standing.push(subscription);
        if (acked) start(subscription);
        return {
          stop: function () {
            standing = standing.filter(function (other) {
              return other !== subscription;
            });
            if (subscription.id !== null && operations[subscription.id]) {
              delete operations[subscription.id];
              send({ id: subscription.id, type: 'complete' });
            }
            subscription.id = null;
          },
        };
      },
      /**
       * A query or mutation over the socket; resolves (never rejects) with its result, { data,
       * errors }, or with a refusal when there is no acknowledged socket or it is lost meanwhile.
       */
      request: function (query, variables) {
        return new Promise(function (resolve) {
          if (!acked) {
            resolve(refusal());
            return;
          }
          var id = String(nextId++);
          var settle = function (result) {
            delete operations[id];
            resolve(result);
          };
          operations[id] = {
            next: settle,
            error: function (errors) {
              settle({ errors: errors });
            },
            complete: function () {
              settle({});
            },
            refuse: function () {
              settle(refusal());
            },
          };
          send({ id: id, type: 'subscribe', payload: { query: query, variables: variables || {} } });
        });
      },
    };
  }

  window.liveClient = liveClient;
})();
