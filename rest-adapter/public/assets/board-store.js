/*
 * The staff board's durable memory, in IndexedDB: what survives a reload and a tablet's restart
 * with no connection. `state` holds named values (the credential, the last confirmed tickets, the
 * number lease, the clock's offset, conflicts); `queue` holds the changes made and not yet applied
 * by the platform, in the order they were made. ES2019 at most, no framework.
 */
(function () {
  'use strict';
  var NAME = 'staff-board';
  var VERSION = 1;

  function settled(request) {
    return new Promise(function (resolve, reject) {
      request.onsuccess = function () {
        resolve(request.result);
      };
      request.onerror = function () {
        reject(request.error);
      };
    });
  }

  function committed(tx) {
    return new Promise(function (resolve, reject) {
      tx.oncomplete = function () {
        resolve();
      };
      tx.onerror = tx.onabort = function () {
        reject(tx.error);
      };
    });
  }

  function open() {
    var request = window.indexedDB.open(NAME, VERSION);
    request.onupgradeneeded = function () {
      var db = request.result;
      db.createObjectStore('state');
      db.createObjectStore('queue', { keyPath: 'seq', autoIncrement: true });
    };
    return settled(request);
  }

  function loadState(opened, keys) {
    var tx = opened.transaction(['state'], 'readonly');
    var values = {};
    keys.forEach(function (key) {
      settled(tx.objectStore('state').get(key)).then(function (value) {
        if (value !== undefined) values[key] = value;
      });
    });
    return committed(tx).then(function () {
      return values;
    });
  }

  /**
   * Every write is one transaction, so a change and what it uses up (a leased number, a number of
   * the device's own series) are kept together or not at all: a number is never given twice.
   */
  function boardStore() {
    var db = open();

    function run(stores, work) {
      return db.then(function (opened) {
        var tx = opened.transaction(stores, 'readwrite');
        var answer = work(tx);
        return committed(tx).then(function () {
          return answer;
        });
      });
    }

    function putState(tx, values) {
      var state = tx.objectStore('state');
      Object.keys(values).forEach(function (key) {
        if (values[key] === undefined) state.delete(key);
        else state.put(values[key], key);
      });
    }

    return {
      /** The named values, as an object; those never written are absent. */
      load: function (keys) {
        return db.then(function (opened) {
          return loadState(opened, keys);
        });
      },
      /** Writes the named values; one given as undefined is removed. */
      save: function (values) {
        return run(['state'], function (tx) {
          putState(tx, values);
        });
      },
      /** Adds a change to the queue with the state it uses up; answers the change with its seq. */
      enqueue: function (change, values) {
        return run(['queue', 'state'], function (tx) {
          putState(tx, values || {});
          var added = settled(tx.objectStore('queue').add(change));
          return added.then(function (seq) {
            change.seq = seq;
            return change;
          });
        });
      },
      /** The queued changes, oldest first. */
      queued: function () {
        return db.then(function (opened) {
          return settled(opened.transaction(['queue'], 'readonly').objectStore('queue').getAll());
        });
      },
      /** Removes an applied (or refused) change, writing the state its outcome changed. */
      settle: function (seq, values) {
        return run(['queue', 'state'], function (tx) {
          tx.objectStore('queue').delete(seq);
          putState(tx, values || {});
        });
      },
      /** Rewrites a queued change (a ticket created offline has its platform id now). */
      update: function (change) {
        return run(['queue'], function (tx) {
          tx.objectStore('queue').put(change);
        });
      },
      /** Forgets everything: the device was removed, or staff left the board. */
      clear: function () {
        return run(['queue', 'state'], function (tx) {
          tx.objectStore('queue').clear();
          tx.objectStore('state').clear();
        });
      },
    };
  }

  window.boardStore = boardStore;
})();
