import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A logger whose lines are kept as parsed JSON, to see what the code under test reported. */
export function recordingLogger<Line extends { level: number; msg: string }>(): {
  logger: Logger;
  lines: Line[];
} {
  const lines: Line[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Line);
        done();
      },
    }),
  );
  return { logger, lines };
}

/** The JSON log lines among a process's output (its other output, a stack trace say, left out). */
export function jsonLines<Line>(output: string): Line[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);
}
