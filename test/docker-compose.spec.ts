import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
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

function requireCompose(): [string, string[]] {
  const compose = composeCommand();
  if (compose === undefined) {
    throw new Error('a docker client is installed but no compose: run `bash scripts/setup.sh` to install it');
  }
  return compose;
}

interface Service {
  profiles?: string[];
  environment?: Record<string, string | number | boolean | null>;
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  command?: string[];
}

/** The file as written, merge keys resolved: the checks that read it need no docker client. */
const composeText = readFileSync(join(projectRoot(), 'docker-compose.yml'), 'utf8');
const composeFile = parse(composeText, { merge: true }) as { services: Record<string, Service> };

const PLATFORM = ['billing', 'cv', 'gateway', 'identity', 'rest-adapter', 'tickets', 'tickets-events'];
const BASE = [...PLATFORM, 'migrate', 'postgres', 'redis'].sort();
const OBSERVABILITY = ['grafana', 'jaeger', 'otel-collector', 'prometheus'];

/** Services `config` resolves for these profiles. Compose v1 lists inactive ones too, with their profiles. */
function activeServices(yamlText: string, profiles: string[]): string[] {
  const { services } = parse(yamlText) as { services: Record<string, Service> };
  return Object.entries(services)
    .filter(([, s]) => s.profiles === undefined || s.profiles.some((p) => profiles.includes(p)))
    .map(([name]) => name)
    .sort();
}

/** A bind mount's host path relative to the project, in short (`./a:/b:ro`) or long syntax. */
function boundSources(service: Service): string[] {
  return (service.volumes ?? []).flatMap((volume) => {
    const source = typeof volume === 'string' ? volume.split(':')[0] : volume.source;
    return source?.startsWith('./') ? [source] : [];
  });
}

describe('docker-compose.yml', () => {
  (hasDockerClient ? it : it.skip)('is accepted by `docker compose config` (no engine needed)', () => {
    const [command, prefix] = requireCompose();
    const result = succeeds(command, [...prefix, 'config', '-q']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(activeServices(succeeds(command, [...prefix, 'config']).stdout, [])).toEqual(BASE);
  });

  (hasDockerClient ? it : it.skip)('is accepted with the observability profile', () => {
    const [command, prefix] = requireCompose();
    const profile = [...prefix, '--profile', 'observability', 'config'];
    const result = succeeds(command, [...profile, '-q']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(activeServices(succeeds(command, profile).stdout, ['observability'])).toEqual(
      [...BASE, ...OBSERVABILITY].sort(),
    );
  });

  it('puts the collector, Jaeger, Prometheus and Grafana in the observability profile only', () => {
    for (const name of OBSERVABILITY) expect(composeFile.services[name]?.profiles).toEqual(['observability']);
    expect(activeServices(composeText, [])).toEqual(BASE);
  });

  it('mounts files that exist, and each tool finds its configuration where it looks', () => {
    const sources = OBSERVABILITY.flatMap((name) => boundSources(composeFile.services[name] ?? {}));
    expect(sources.sort()).toEqual([
      './deploy/grafana/dashboards',
      './deploy/grafana/provisioning',
      './deploy/otel-collector/config.yaml',
      './deploy/prometheus',
    ]);
    expect(sources.filter((source) => !existsSync(join(projectRoot(), source)))).toEqual([]);
    expect(existsSync(join(projectRoot(), 'deploy/prometheus/prometheus.yml'))).toBe(true);
    expect(existsSync(join(projectRoot(), 'deploy/grafana/provisioning/dashboards/dashboards.yml'))).toBe(
      true,
    );
  });

  it("sends the collector's traces to Jaeger and points Grafana at the services by name", () => {
    const readYaml = (path: string) => parse(readFileSync(join(projectRoot(), path), 'utf8')) as unknown;
    const collector = readYaml('deploy/otel-collector/config.yaml') as {
      receivers: { otlp: { protocols: Record<string, { endpoint: string }> } };
      exporters: Record<string, { endpoint: string }>;
      service: { pipelines: { traces: { receivers: string[]; exporters: string[] } } };
    };
    expect(Object.keys(collector.receivers.otlp.protocols).sort()).toEqual(['grpc', 'http']);
    expect(collector.service.pipelines.traces.receivers).toEqual(['otlp']);
    const endpoints = collector.service.pipelines.traces.exporters.map(
      (e) => collector.exporters[e]?.endpoint,
    );
    expect(endpoints).toEqual(['jaeger:4317']);

    const { datasources } = readYaml('deploy/grafana/provisioning/datasources/datasources.yml') as {
      datasources: { url: string }[];
    };
    expect(datasources.map((d) => new URL(d.url).host).sort()).toEqual(['jaeger:16686', 'prometheus:9090']);
    const { providers } = readYaml('deploy/grafana/provisioning/dashboards/dashboards.yml') as {
      providers: { options: { path: string } }[];
    };
    const grafanaMounts = (composeFile.services.grafana?.volumes ?? []).map(String);
    expect(grafanaMounts).toContain(`./deploy/grafana/dashboards:${providers[0]?.options.path}:ro`);
  });

  it('lets every platform process serve metrics to the network and export spans only when told', () => {
    for (const name of PLATFORM) {
      const environment = composeFile.services[name]?.environment;
      expect({ name, METRICS_HOST: environment?.METRICS_HOST }).toEqual({ name, METRICS_HOST: '0.0.0.0' });
      expect({ name, endpoint: environment?.OTEL_EXPORTER_OTLP_ENDPOINT }).toEqual({
        name,
        endpoint: '${OTEL_EXPORTER_OTLP_ENDPOINT:-}',
      });
    }
  });
});
