import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { basename, dirname, join } from 'node:path';

/**
 * Preloaded into a process (`--require`, through NODE_OPTIONS, which refuses `--cpu-prof`): V8's
 * sampling profiler starts on SIGUSR2 and its profile is written to BENCH_CPU_PROFILE_DIR when the
 * process exits, so a profile covers the measured load and not the start. Named
 * `<folder>-<script>.<pid>.cpuprofile` (`rest-adapter-main.1234.cpuprofile`).
 */
const dir = process.env.BENCH_CPU_PROFILE_DIR;
const script = process.argv[1];
if (dir !== undefined && script !== undefined) {
  const session = new Session();
  session.connect();
  let started = false;
  process.on('SIGUSR2', () => {
    if (started) return;
    started = true;
    session.post('Profiler.enable', () => session.post('Profiler.start'));
  });
  // The in-process session answers synchronously, so the profile is written before the exit.
  process.on('exit', () => {
    if (!started) return;
    session.post('Profiler.stop', (error, result) => {
      if (error !== null) return;
      const name = `${basename(dirname(script))}-${basename(script, '.js')}.${process.pid}.cpuprofile`;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, name), JSON.stringify(result.profile));
    });
  });
}
