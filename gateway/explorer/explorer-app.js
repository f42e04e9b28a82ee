// The explorer's browser side, bundled with GraphiQL by tools/build-explorer.ts and served by the
// gateway from its own origin (gateway/explorer/explorer-route.ts). Plain JavaScript read only by
// esbuild, so TypeScript never needs React's types.
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { Kind, parse } from 'graphql';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import 'graphiql/style.css';
import './explorer-app.css';

// Radix's dialogs add a <style> element to lock scrolling, stamped with get-nonce's nonce, which
// reads webpack's global; the page's Content-Security-Policy admits that nonce and no other style.
globalThis.__webpack_nonce__ = document.querySelector('meta[property="csp-nonce"]')?.nonce || undefined;

// The page's own address, so the explorer follows the gateway behind any proxy; graphql-ws listens
// on exactly `/graphql`, without a trailing slash.
const path = location.pathname.replace(/\/+$/, '');
const socketScheme = location.protocol === 'https:' ? 'wss:' : 'ws:';

const toolkitFetcher = createGraphiQLFetcher({
  url: path,
  // The toolkit opens a graphql-ws client per subscription with the headers editor's headers as the
  // connection_init payload, where the gateway's live server reads `authorization`.
  subscriptionUrl: `${socketScheme}//${location.host}${path}`,
  // The gateway answers no @defer: plain JSON requests, as every other client sends.
  enableIncrementalDelivery: false,
});

/**
 * GraphiQL hands over its own parse of the editor, which trails the text by 100 ms: run right
 * after an edit (a paste, then Ctrl+Enter), a subscription went over HTTP under the previous
 * document's kind and operation name. Both are taken from the text actually sent instead.
 */
function fetcher(params, options) {
  let documentAST;
  try {
    documentAST = parse(params.query);
  } catch {
    return toolkitFetcher(params, options);
  }
  const operations = documentAST.definitions.filter(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const operationName = operations.length === 1 ? operations[0].name?.value : params.operationName;
  return toolkitFetcher({ ...params, operationName }, { ...options, documentAST });
}

const DEFAULT_QUERY = `# The platform's graph, from this gateway (development only).
#
# Credentials go in the Headers tab below, as JSON:
#   { "Authorization": "Bearer tk_…" }    a branch's API key
#   { "Authorization": "Bearer ses_…" }   a signed-in session (with "X-Branch-Id" for tickets)
#   { "X-API-Key": "…" }                  a CV account's key
# Subscriptions run over graphql-ws on this same address and send those headers too.

{
  plans(product: TICKETS) {
    key
    name
  }
}
`;

// A link such as /graphql?query=… opens with that operation in the editor; a browser's GET never
// ran it anyway, since Apollo's CSRF prevention refuses a GET without a preflight header.
const params = new URLSearchParams(location.search);
const fromLink = (name) => params.get(name) ?? undefined;

createRoot(document.getElementById('explorer')).render(
  createElement(GraphiQL, {
    fetcher,
    defaultQuery: DEFAULT_QUERY,
    query: fromLink('query'),
    variables: fromLink('variables'),
    operationName: fromLink('operationName'),
    isHeadersEditorEnabled: true,
    // Keys and sessions stay out of localStorage.
    shouldPersistHeaders: false,
  }),
);
