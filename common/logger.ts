import pino, { type Logger } from 'pino';
import { currentRequestId } from './request-context';

export type { Logger };

export interface LoggerOptions {
  service: string;
  level: string;
  /** The admin CLI keeps stdout for its one JSON value, so its logs go to stderr. */
  toStderr?: boolean;
}

/** Structured JSON logs; every line written inside a request carries that request's id. */
export function createLogger({ service, level, toStderr = false }: LoggerOptions): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin() {
        const requestId = currentRequestId();
        return requestId === undefined ? {} : { requestId };
      },
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.password', '*.secret'],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: toStderr ? 2 : 1, sync: true }),
  );
}
