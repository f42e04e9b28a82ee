import type { NextFunction, Request, Response, Router } from 'express';
import type { RouteParameters } from 'express-serve-static-core';
import type { OperationDescription } from './openapi';

/** Where the adapter serves both documents' routes, under the public base URL. */
export const API_PREFIX = '/api/v1';

/** The methods the documents use. */
export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** What every route of a table has, whether a document describes it or not. */
export interface TableRoute<TDependencies> {
  method: HttpMethod;
  /** In express's syntax (`/tickets/:id`); a document writes it `/tickets/{id}`. */
  path: string;
  /** The route's own operation first; any other is sent only to answer a refusal in the document's order. */
  operations: readonly { readonly name: string; readonly document: string }[];
  handler: (
    req: Request,
    res: Response,
    dependencies: TDependencies,
    next: NextFunction,
  ) => Promise<void> | void;
}

/**
 * One REST route of a document: where it is, the graph operations it sends, what the document
 * says of it and what answers it. A document's OpenAPI paths and its express router are both
 * built from its table, so a route cannot be served undescribed or described unserved.
 */
export interface RestRoute<TDescriptions, TDependencies> extends TableRoute<TDependencies> {
  /** The route's OpenAPI operation, worded from the document's descriptions (which carry the configured limits). */
  openapi: (descriptions: TDescriptions) => OperationDescription;
}

/** A route of a public page (HTML, its assets and its own small JSON writes): no document describes it. */
export interface PageRoute<TDependencies> extends TableRoute<TDependencies> {
  /** What the route is for, in place of a document's description. */
  summary: string;
}

/** An entry whose handler sees the parameters its path names, typed. */
type Typed<TRoute extends TableRoute<never>, TPath extends string> = Omit<TRoute, 'path' | 'handler'> & {
  path: TPath;
  handler: (
    req: Request<RouteParameters<TPath>>,
    res: Response,
    dependencies: Parameters<TRoute['handler']>[2],
    next: NextFunction,
  ) => Promise<void> | void;
};

/** The entry maker of one table, its handlers' parameters typed by their paths. */
function entriesOf<TRoute extends TableRoute<never>>() {
  return <TPath extends string>(entry: Typed<TRoute, TPath>): TRoute =>
    // express hands the handler exactly the parameters its path names.
    entry as unknown as TRoute;
}

/** The entry maker of a document's table: `const route = routeFor<Descriptions, Dependencies>()`. */
export function routeFor<TDescriptions, TDependencies>() {
  return entriesOf<RestRoute<TDescriptions, TDependencies>>();
}

/** The entry maker of a page's table. */
export function pageRouteFor<TDependencies>() {
  return entriesOf<PageRoute<TDependencies>>();
}

/** An express path as OpenAPI writes it: `/tickets/:id` → `/tickets/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** Registers every route of a table on `router`, once each and in the table's order. */
export function registerRoutes<TDependencies>(
  router: Router,
  routes: readonly TableRoute<TDependencies>[],
  dependencies: TDependencies,
): Router {
  for (const route of routes) {
    router[route.method](route.path, (req, res, next) => route.handler(req, res, dependencies, next));
  }
  return router;
}
