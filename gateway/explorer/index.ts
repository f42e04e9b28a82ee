/**
 * The development explorer: GraphiQL bundled by `npm run build` (tools/build-explorer.ts) from
 * explorer-app.js, read once at start and served outside production: the page on `GET /graphql` for
 * a browser, its content-hashed files under `/graphql/explorer/`.
 * What the root module may use; the rest of explorer/ is its own.
 * It uses no other folder of the gateway.
 */
export { readExplorerBundle, type ExplorerBundle } from './explorer-bundle';
export { mountExplorer } from './explorer-route';
