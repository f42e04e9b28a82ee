import pino, { type DestinationStream, type Logger } from 'pino';
import { redactSerializedError } from './redaction';
import { currentRequestId } from './request-context';
import { traceFields } from './trace-context';

export type { Logger };

export interface LoggerOptions {
  service: string;
  level: string;
  /** The admin CLI keeps stdout for its one JSON value, so its logs go to stderr. */
  toStderr?: boolean;
  /** Where the lines go instead of stdout or stderr: a test that reads them. */
  destination?: DestinationStream;
}

/**
 * Structured JSON logs; every line written inside a request carries that request's id, and every
 * line written inside a trace its `trace_id` and `span_id` (OpenTelemetry's log field names), so
 * a line found in the logs leads to its trace and back.
 */
export function createLogger({ service, level, toStderr = false, destination }: LoggerOptions): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin() {
        const requestId = currentRequestId();
        return requestId === undefined ? traceFields() : { requestId, ...traceFields() };
      },
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.password', '*.secret'],
        censor: '[redacted]',
      },
      // An error's message may quote a URL or a statement, and with it a token (common/redaction.ts).
      serializers: {
        err: (error: unknown) => redactSerializedError(pino.stdSerializers.err(error as Error)),
      },
    },
    destination ?? pino.destination({ fd: toStderr ? 2 : 1, sync: true }),
  );
}
