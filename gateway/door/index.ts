/**
 * The door: HTTP `/graphql`. The front door ahead of express for the requests it can prove it
 * serves as express would (graphql-door.ts), express's way for the rest, the count each request
 * starts as it arrives (arrival-count.ts), and the HTTP status of an operation that failed as a
 * whole (errorStatusPlugin).
 * What the root module may use; the rest of door/ is its own.
 * It uses context/, limits/ and fetch/.
 */
export { mountGraph, type GraphRoute } from './graphql-route';
export { errorStatusPlugin } from './error-status.plugin';
