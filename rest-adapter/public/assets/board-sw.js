/*
 * The staff board's service worker. The server writes RELEASE and PRECACHE above this: the board's
 * page and this release's content-hashed scripts, stylesheet and fonts, kept in one cache named by
 * the release. A new release installs its own cache whole, then the old one is deleted, so a page
 * never runs with another release's files. The page is asked of the network first (a fresh board
 * whenever the line is up) and answered from the cache when the network fails or hangs; files are
 * answered from the cache first (their names change with their content). The chime and the voice
 * are made on the tablet (Web Audio, the system's voices): there is nothing of them to keep.
 */
/* global RELEASE, PRECACHE, caches, fetch, Response, URL */
'use strict';
var CACHE = 'board-' + RELEASE;
// A network that neither answers nor fails (a dead router) is not waited on longer than this.
var PAGE_TIMEOUT_MS = 4000;

self.addEventListener('install', function (event) {
  event.waitUntil(
    caches
      .open(CACHE)
      .then(function (cache) {
        return cache.addAll(PRECACHE);
      })
      .then(function () {
        return self.skipWaiting();
      }),
  );
});

self.addEventListener('activate', function (event) {
  event.waitUntil(
    caches
      .keys()
      .then(function (names) {
        return Promise.all(
          names
            .filter(function (name) {
              return name.indexOf('board-') === 0 && name !== CACHE;
            })
            .map(function (name) {
              return caches.delete(name);
            }),
        );
      })
      .then(function () {
        return self.clients.claim();
      }),
  );
});

function withTimeout(promise, ms) {
  return new Promise(function (resolve, reject) {
    var timer = setTimeout(function () {
      reject(new Error('timed out'));
    }, ms);
    promise.then(
      function (value) {
        clearTimeout(timer);
        resolve(value);
      },
      function (error) {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The board's page: the network's when it answers (kept for next time), else the kept one. */
function page(request) {
  return withTimeout(fetch(request), PAGE_TIMEOUT_MS)
    .then(function (response) {
      if (response.ok) {
        var copy = response.clone();
        caches.open(CACHE).then(function (cache) {
          return cache.put(request, copy);
        });
      }
      return response;
    })
    .catch(function () {
      return caches.open(CACHE).then(function (cache) {
        // The page varies by language: the one asked for if kept, else any kept board.
        return cache.match(request, { ignoreVary: true }).then(function (kept) {
          return kept || cache.match('/board', { ignoreVary: true, ignoreSearch: true });
        });
      });
    })
    .then(function (response) {
      return response || Response.error();
    });
}

/** A content-hashed file: the kept copy, or the network's, kept from then on. */
function file(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request).then(function (kept) {
      if (kept) return kept;
      return fetch(request).then(function (response) {
        if (response.ok) cache.put(request, response.clone());
        return response;
      });
    });
  });
}

self.addEventListener('fetch', function (event) {
  var request = event.request;
  if (request.method !== 'GET') return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate' && url.pathname.indexOf('/board') === 0) event.respondWith(page(request));
  else if (url.pathname.indexOf('/b/assets/') === 0) event.respondWith(file(request));
});
