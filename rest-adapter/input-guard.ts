import type { Request, RequestHandler } from 'express';
import { match } from 'path-to-regexp';
import { addFieldError, type FieldMessages } from '../common/errors';
import { textErrorsIn, textProblemMessage, textProblemOf, type TextProblem } from '../common/input.rules';

/** What the guard found, for the document's own answer. */
export interface InputRefusal {
  /** Field, parameter or header → messages, for the 422. */
  errors: FieldMessages;
  /** The path's parameters: decoded, or as sent when they could not be. */
  params: Record<string, string>;
  /** A parameter that addresses a record cannot name one (a NUL, bytes that are not UTF-8). */
  unaddressable: boolean;
}

export interface InputGuardOptions {
  /** Where the document's routes are (`/tickets`); other paths pass untouched. */
  paths: readonly string[];
  /** Its routes with parameters (`/tickets/:id`); the first that matches names the path's parameters. */
  routes: readonly string[];
  /** Parameters that address a record: a value that cannot be one is that record's 404, not a field error. */
  identifiers?: readonly string[];
  /** Request headers the routes read or pass on to the graph (lower case). */
  headers: readonly string[];
  /**
   * Answers the request in the document's order of checks (the key first, then the record, then
   * the fields); always throws.
   */
  refuse(req: Request, refusal: InputRefusal): Promise<never>;
}

/** A route's parameter as the documents name fields: `externalId` → `external_id`. */
const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** decodeURIComponent for one component, with `+` as a space in a query: undefined for bytes that are not UTF-8. */
function decoded(component: string, plusIsSpace = false): string | undefined {
  try {
    return decodeURIComponent(plusIsSpace ? component.replace(/\+/g, ' ') : component);
  } catch {
    return undefined;
  }
}

function problemOf(raw: string, plusIsSpace = false): { value: string; problem?: TextProblem } {
  const value = decoded(raw, plusIsSpace);
  if (value === undefined) return { value: raw, problem: 'malformed' };
  const problem = textProblemOf(value);
  return problem === undefined ? { value } : { value, problem };
}

/**
 * The query as sent. Express's parser replaces bytes that are not UTF-8 with U+FFFD without a
 * word, so the raw text is read to tell the client which parameter was malformed.
 */
function queryProblems(rawQuery: string, errors: FieldMessages): void {
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const rawName = separator === -1 ? pair : pair.slice(0, separator);
    const name = problemOf(rawName, true);
    // The key of the error is the parameter's name as far as it can be read.
    const key = name.problem === undefined ? name.value.replace(/\[\]$/, '') : 'query';
    if (name.problem !== undefined) addFieldError(errors, key, textProblemMessage(key, name.problem));
    if (separator === -1) continue;
    const value = problemOf(pair.slice(separator + 1), true);
    if (value.problem !== undefined) addFieldError(errors, key, textProblemMessage(key, value.problem));
  }
}

/**
 * One check, per document router, of every text a route reads: path parameters, query, the parsed
 * JSON body (field by field, `sections.experience.0.title`) and headers. A NUL, a lone surrogate or
 * bytes that are not UTF-8 are refused with the field named, in the document's shape and order of
 * checks, before anything is asked of the graph; the graph's own guard (gateway/limits/input-guard.plugin.ts)
 * applies the same rule to GraphQL clients.
 */
export function inputGuard(options: InputGuardOptions): RequestHandler {
  const matchers = options.routes.map((route) =>
    match<Record<string, string>>(route, { decode: false, end: false, sensitive: false }),
  );
  const identifiers = new Set(options.identifiers ?? []);
  return (req, _res, next) => {
    const url = req.originalUrl;
    const queryStart = url.indexOf('?');
    // Relative to the router, as the routes are written; still percent-encoded, as sent.
    const path = (queryStart === -1 ? url : url.slice(0, queryStart)).slice(req.baseUrl.length) || '/';
    if (!options.paths.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) {
      next();
      return;
    }
    const errors: FieldMessages = {};
    const params: Record<string, string> = {};
    let unaddressable = false;
    for (const matcher of matchers) {
      const found = matcher(path);
      if (found === false) continue;
      for (const [name, raw] of Object.entries(found.params)) {
        const { value, problem } = problemOf(raw);
        params[name] = value;
        if (problem === undefined) continue;
        if (identifiers.has(name)) unaddressable = true;
        else addFieldError(errors, snakeCase(name), textProblemMessage(snakeCase(name), problem));
      }
      break;
    }
    if (queryStart !== -1) queryProblems(url.slice(queryStart + 1), errors);
    for (const [field, messages] of Object.entries(textErrorsIn(req.body))) {
      for (const message of messages) addFieldError(errors, field, message);
    }
    for (const header of options.headers) {
      const value = req.get(header);
      const problem = value === undefined ? undefined : textProblemOf(value);
      if (problem !== undefined) {
        const key = header.replace(/-/g, '_');
        addFieldError(errors, key, textProblemMessage(key, problem));
      }
    }
    if (!unaddressable && Object.keys(errors).length === 0) {
      next();
      return;
    }
    options.refuse(req, { errors, params, unaddressable }).catch(next);
  };
}
