// The ticket page's service worker: shows the ready and ring notifications pushed while the page
// is in the background, and brings the page back when the customer taps one.
'use strict';

self.addEventListener('push', function (event) {
  var message;
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : '' };
  }
  event.waitUntil(
    self.registration.showNotification(message.title || '', {
      body: message.body || '',
      tag: 'ticket',
      renotify: true,
      requireInteraction: true,
      vibrate: [300, 150, 300, 150, 600],
      data: { url: message.url },
    }),
  );
});

self.addEventListener('notificationclick', function (event) {
  event.notification.close();
  var url = event.notification.data && event.notification.data.url;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(function (windows) {
      for (var i = 0; i < windows.length; i++) {
        if (url && windows[i].url.indexOf(url) === 0 && 'focus' in windows[i]) return windows[i].focus();
      }
      return url ? self.clients.openWindow(url) : undefined;
    }),
  );
});
