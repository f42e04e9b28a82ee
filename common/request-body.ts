import type { ErrorRequestHandler } from 'express';
import { languageOf, type TextLanguage } from './language';
import { text } from './messages';

/**
 * The status body-parser gave a request body it refused (400 unreadable or not JSON, 413 too large,
 * 415 an encoding it does not take), or undefined for any other error.
 */
export function bodyRefusalStatus(error: unknown): number | undefined {
  const { status, expose } = (error ?? {}) as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true ? status : undefined;
}

/**
 * The answer to a `/graphql` body refused with `status` (body-parser's `type` of error, such as
 * `entity.parse.failed`): JSON with `errors` and BAD_REQUEST, in the caller's language.
 */
export function graphQLBodyRefusalAnswer(
  status: number,
  type: unknown,
  language: TextLanguage,
  bodyLimit: string,
): { errors: [{ message: string; extensions: { code: 'BAD_REQUEST' } }] } {
  const message =
    type === 'entity.parse.failed'
      ? text('request.invalid_json', language)
      : type === 'entity.too.large'
        ? text('request.too_large', language, {
            size: bodyLimit.replace(/^(\d+)\s*([a-z]+)$/i, '$1 $2').toUpperCase(),
          })
        : status === 415
          ? text('request.encoding', language)
          : text('request.unreadable', language);
  return { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] };
}

/**
 * Answers a `/graphql` body that body-parser refused as GraphQL clients expect any refusal
 * (`graphQLBodyRefusalAnswer`), instead of Express's HTML page.
 */
export function graphQLBodyRefusal(bodyLimit: string): ErrorRequestHandler {
  return (error, req, res, next) => {
    const status = bodyRefusalStatus(error);
    if (status === undefined || res.headersSent) {
      next(error);
      return;
    }
    const type = (error as { type?: unknown }).type;
    res
      .status(status)
      .json(graphQLBodyRefusalAnswer(status, type, languageOf(req.get('accept-language')), bodyLimit));
  };
}
