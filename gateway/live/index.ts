/**
 * Live: graphql-ws on the gateway's `/graphql`. Admission (who may open a socket and send what),
 * the registry of the operations sockets hold, access (a socket closed when its credential is
 * revoked), the feed (the Redis channels of live events and access announcements) and the hub
 * (one result per event and group of alike subscribers, written to each socket).
 * What the root module may use; the rest of live/ is its own.
 * It uses context/ and limits/.
 */
export { startLiveServer, type LiveServerOptions, type RunningLiveServer } from './live-server';
