import { spawnSync } from 'node:child_process';
import { projectRoot } from '../common/paths';

const succeeds = (command: string, args: string[]) =>
  spawnSync(command, args, { cwd: projectRoot(), encoding: 'utf8', timeout: 30_000 });

/** `docker compose` (plugin) or `docker-compose` (standalone), whichever this machine has. */
function composeCommand(): [string, string[]] | undefined {
  if (succeeds('docker', ['compose', 'version']).status === 0) return ['docker', ['compose']];
  if (succeeds('docker-compose', ['version']).status === 0) return ['docker-compose', []];
  return undefined;
}

const hasDockerClient = succeeds('docker', ['--version']).status === 0;

describe('docker-compose.yml', () => {
  (hasDockerClient ? it : it.skip)('is accepted by `docker compose config` (no engine needed)', () => {
    const compose = composeCommand();
    if (compose === undefined) {
      throw new Error(
        'a docker client is installed but no compose: run `bash scripts/setup.sh` to install it',
      );
    }
    const [command, prefix] = compose;
    const result = succeeds(command, [...prefix, 'config', '-q']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const services = succeeds(command, [...prefix, 'config', '--services'])
      .stdout.trim()
      .split('\n')
      .sort();
    expect(services).toEqual([
      'billing',
      'cv',
      'gateway',
      'identity',
      'migrate',
      'postgres',
      'redis',
      'rest-adapter',
      'tickets',
      'tickets-events',
    ]);
  });
});
