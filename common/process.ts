import { ConfigError } from './config';
import { UnreachableError } from './postgres';

/** The longest a stopping process waits for its last spans to be exported (after the drain). */
export const FLUSH_TIMEOUT_MS = 2_000;

/** What an entry point leaves running: stopping it drains servers and closes connections. */
export interface Running {
  stop(): Promise<void>;
}

/** Makes a stop function safe to call twice (a signal during a test's own cleanup, say). */
export function stopOnce(stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => (stopping ??= stop());
}

/** Errors that are the operator's to fix; their message is the whole story, a stack adds nothing. */
function isOperatorError(error: unknown): error is Error {
  return error instanceof ConfigError || error instanceof UnreachableError;
}

export function describeFailure(error: unknown): string {
  if (isOperatorError(error)) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** What a process flushes last, after it stopped: spans still buffered for export (common/telemetry.ts). */
export interface Flushable {
  shutdown(): Promise<void>;
}

/**
 * Runs a process entry point: a start failure is printed plainly and exits 1; SIGTERM or SIGINT
 * stops what started (draining in-flight requests), flushes `telemetry` and exits 0.
 */
export function runMain(name: string, start: () => Promise<Running>, telemetry?: Flushable): void {
  // The spans of the last requests are exported before exit, or a trace would end mid-way; a
  // collector that is away must not hold the exit, so the flush has a bound.
  const flush = () =>
    telemetry === undefined
      ? Promise.resolve()
      : Promise.race([
          telemetry.shutdown().catch(() => undefined),
          new Promise<void>((resolve) => setTimeout(resolve, FLUSH_TIMEOUT_MS).unref()),
        ]);
  start().then(
    (running) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(`${name}: ${signal} received, draining\n`);
        running.stop().then(
          () => flush().then(() => process.exit(0)),
          (error: unknown) => {
            process.stderr.write(`${name}: stop failed: ${describeFailure(error)}\n`);
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (error: unknown) => {
      process.stderr.write(`${name}: ${describeFailure(error)}\n`);
      process.exit(1);
    },
  );
}
