import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import webpush from 'web-push';
import { CONFIG_VARIABLES, loadConfig } from '../common/config';
import { projectRoot } from '../common/paths';
import { FLUSH_TIMEOUT_MS } from '../common/process';
import { CLOSE_GRACE_MS } from '../subgraphs/cv/render/renderer';
import { countKinds, parseYamlDocuments, renderKustomization, type KubeObject } from '../tools/kustomize';
import {
  callsBetweenProcesses,
  envFileEntries,
  platformProcesses,
  quantity,
  schemaProblems,
} from './support/kubernetes';

const K8S = join(projectRoot(), 'deploy', 'kubernetes');
const RENDERINGS = { base: join(K8S, 'base'), production: join(K8S, 'overlays', 'production') };
type Rendering = keyof typeof RENDERINGS;
const rendered: Record<Rendering, KubeObject[]> = {
  base: renderKustomization(RENDERINGS.base),
  production: renderKustomization(RENDERINGS.production),
};

const PROCESSES = platformProcesses();
const CALLS = callsBetweenProcesses(PROCESSES);
/** Who calls each process from inside the platform, read from the code. */
const callersOf = (name: string) =>
  [...CALLS].filter(([, called]) => called.has(name)).map(([caller]) => caller);
/** The doors the Ingress sends the public to. */
const DOORS = ['rest-adapter', 'gateway'];
/** Something calls it, from outside or inside: it needs a Service and a policy admitting the callers. */
const isCalled = (name: string) => DOORS.includes(name) || callersOf(name).length > 0;
const AUTOSCALED = ['gateway', 'rest-adapter', 'tickets', 'cv'];
const SECRET_NAME = 'nida-secrets';
const CONFIG_NAME = 'nida-config';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  enableServiceLinks?: boolean;
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  topologySpreadConstraints?: {
    topologyKey: string;
    labelSelector?: { matchLabels?: Record<string, string> };
  }[];
  volumes?: { name: string; emptyDir?: object }[];
}
interface Workload extends KubeObject {
  spec: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}
interface PolicyPeer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
}
interface Policy extends KubeObject {
  spec: {
    podSelector: { matchLabels?: Record<string, string> };
    policyTypes?: string[];
    ingress?: { from?: PolicyPeer[]; ports?: { port: string | number }[] }[];
  };
}

const ofKind = <T extends KubeObject>(objects: KubeObject[], kind: string) =>
  objects.filter((o) => o.kind === kind) as T[];
const named = <T extends KubeObject>(objects: KubeObject[], kind: string, name: string): T => {
  const found = ofKind<T>(objects, kind).find((o) => o.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found;
};
const workloads = (objects: KubeObject[]) => [
  ...ofKind<Workload>(objects, 'Deployment'),
  ...ofKind<Workload>(objects, 'Job'),
];
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels[k] === v);

const secretFile = readFileSync(join(K8S, 'secret.example.env'), 'utf8');
const SECRET_VARIABLES = envFileEntries(secretFile).map((entry) => entry.name);

/** A value of the right shape for each secret, as an operator's Secret would hold it. */
const WITH_SENTINELS_ONLY = ['REDIS_SENTINEL_PASSWORD'];
/** WhatsApp's secrets go only with its other variables, which the ConfigMap leaves out (WhatsApp off). */
const WITH_WHATSAPP_ONLY = [
  'WHATSAPP_ACCESS_TOKEN',
  'WHATSAPP_APP_SECRET',
  'WHATSAPP_APP_SECRET_SECONDARY',
  'WHATSAPP_VERIFY_TOKEN',
];

function sampleSecret(): Record<string, string> {
  const vapid = webpush.generateVAPIDKeys();
  const samples: Record<string, string> = {
    DATABASE_URL: 'postgres://nida:sample-password@postgres.example:5432/nida',
    REDIS_URL: 'redis://:sample-password@redis.example:6379',
    INTERNAL_SECRET: randomBytes(32).toString('base64'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    // A rotation in progress: the other value of each, which the processes must accept.
    INTERNAL_SECRET_SECONDARY: randomBytes(32).toString('base64'),
    WEBHOOK_SECRET_KEY_SECONDARY: randomBytes(32).toString('base64'),
    SMTP_URL: 'smtp://nida:sample-password@mail.example:587',
    SMS_HTTP_TOKEN: randomBytes(16).toString('hex'),
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
  };
  // Sentinel's password goes only with the Sentinels, which the ConfigMap leaves out (REDIS_URL).
  expect(Object.keys(samples).sort()).toEqual(
    SECRET_VARIABLES.filter((name) => ![...WITH_SENTINELS_ONLY, ...WITH_WHATSAPP_ONLY].includes(name)).sort(),
  );
  return samples;
}

/** A container's environment as the kubelet would give it, from the ConfigMap and `secret`. */
function environmentOf(objects: KubeObject[], container: Container, secret: Record<string, string>) {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const map = named<KubeObject & { data: Record<string, string> }>(
      objects,
      'ConfigMap',
      source.configMapRef!.name,
    );
    Object.assign(env, map.data);
  }
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (ref !== undefined && secret[ref.key] !== undefined) env[variable.name] = secret[ref.key]!;
  }
  return env;
}

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 30_000 });
const hasKubectl = kubectl.status === 0;

describe('deploy/kubernetes', () => {
  (hasKubectl ? it : it.skip)('renders as `kubectl kustomize` does (skipped: no kubectl on PATH)', () => {
    for (const [rendering, directory] of Object.entries(RENDERINGS)) {
      const result = spawnSync('kubectl', ['kustomize', directory], { encoding: 'utf8', timeout: 60_000 });
      expect({ rendering, stderr: result.stderr, status: result.status }).toEqual({
        rendering,
        stderr: '',
        status: 0,
      });
      const id = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      const sorted = (objects: KubeObject[]) =>
        [...objects]
          .sort((a, b) => id(a).localeCompare(id(b)))
          .map((o) => JSON.parse(JSON.stringify(o)) as KubeObject);
      const theirs = sorted(
        parseYamlDocuments(result.stdout, 'kubectl kustomize') as unknown as KubeObject[],
      );
      const ours = sorted(rendered[rendering as Rendering]);
      expect(ours.map(id)).toEqual(theirs.map(id));
      const differing = ours.filter((object, index) => !isDeepStrictEqual(object, theirs[index])).map(id);
      expect({ rendering, differing }).toEqual({ rendering, differing: [] });
    }
  });

  it('has a renderer that refuses what it does not implement', () => {
    const directory = mkdtempSync(join(tmpdir(), 'nida-kustomize-'));
    try {
      const write = (kustomization: string) =>
        writeFileSync(
          join(directory, 'kustomization.yaml'),
          `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n${kustomization}`,
        );
      write(`resources: [${RENDERINGS.base}]\ncommonLabels:\n  team: ops\n`);
      expect(() => renderKustomization(directory)).toThrow(/commonLabels not implemented/);
      write(`resources: [${RENDERINGS.base}]\nlabels:\n  - pairs: {team: ops}\n    includeSelectors: true\n`);
      expect(() => renderKustomization(directory)).toThrow(/includeSelectors and includeTemplates/);
      writeFileSync(
        join(directory, 'patch.yaml'),
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cv\nspec:\n  template:\n    spec:\n      volumes: [{name: tmp, emptyDir: {}}]\n',
      );
      write(`resources: [${RENDERINGS.base}]\npatches:\n  - path: patch.yaml\n`);
      expect(() => renderKustomization(directory)).toThrow(/volumes: merging this list is not implemented/);
      write(
        `resources: [${RENDERINGS.base}]\npatches:\n  - path: patch.yaml\n    target: {kind: Deployment}\n`,
      );
      expect(() => renderKustomization(directory)).toThrow(/target not implemented/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('has a schema check that finds a misspelt field and a wrong type', () => {
    const deployment = structuredClone(named<Workload>(rendered.base, 'Deployment', 'cv'));
    const container = deployment.spec.template.spec.containers[0]! as Container & Record<string, unknown>;
    container.readinesProbe = container.readinessProbe;
    expect(schemaProblems(deployment)).toEqual([
      '.spec.template.spec.containers[0].readinesProbe: not a field of Deployment',
    ]);
    (deployment.spec as Record<string, unknown>).replicas = 'two';
    expect(schemaProblems(deployment).join()).toMatch(/replicas must be integer/);
  });
});

describe.each(Object.keys(RENDERINGS) as Rendering[])('deploy/kubernetes, %s', (rendering) => {
  const objects = rendered[rendering];
  const deployments = ofKind<Workload>(objects, 'Deployment');
  const config = named<KubeObject & { data: Record<string, string> }>(objects, 'ConfigMap', CONFIG_NAME);

  it('holds objects the Kubernetes API schemas accept, with no field they do not know', () => {
    const problems = objects.flatMap((object) =>
      schemaProblems(object).map((problem) => `${object.kind} ${object.metadata.name}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it('holds one of each kind the platform needs per process, and no Secret', () => {
    const called = PROCESSES.filter((p) => isCalled(p.name)).length;
    expect(countKinds(objects)).toEqual({
      ConfigMap: 1,
      Deployment: PROCESSES.length,
      HorizontalPodAutoscaler: AUTOSCALED.length,
      Ingress: 1,
      Job: 1,
      // Default deny, Prometheus' scrape, and one per process something calls.
      NetworkPolicy: called + 2,
      PodDisruptionBudget: PROCESSES.length,
      PodMonitor: PROCESSES.length,
      Service: called,
    });
  });

  it.each(PROCESSES.map((p) => [p.name, p]))('runs %s as docker-compose.yml does', (_name, process) => {
    const deployment = named<Workload>(objects, 'Deployment', process.name);
    const [container, ...others] = deployment.spec.template.spec.containers;
    expect(others).toEqual([]);
    expect(container!.command).toEqual(process.command);
    const image = container!.image.replace(/[:@].*$/, '');
    expect(image.endsWith(process.target === 'cv' ? 'nida/cv' : 'nida/service')).toBe(true);
    expect(container!.ports).toEqual([
      { name: 'http', containerPort: process.port },
      { name: 'metrics', containerPort: process.port + 5000 },
    ]);
    expect(container!.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container!.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    // Kubernetes' service links would set GATEWAY_PORT=tcp://…, which config.ts reads as a port.
    expect(deployment.spec.template.spec.enableServiceLinks).toBe(false);
  });

  it('gives each process that something calls a Service on its public port, and no other', () => {
    const services = ofKind<KubeObject & { spec: { selector: Record<string, string>; ports: object[] } }>(
      objects,
      'Service',
    );
    expect(services.map((s) => s.metadata.name).sort()).toEqual(
      PROCESSES.filter((p) => isCalled(p.name))
        .map((p) => p.name)
        .sort(),
    );
    for (const service of services) {
      const process = PROCESSES.find((p) => p.name === service.metadata.name)!;
      const pods = named<Workload>(objects, 'Deployment', process.name).spec.template.metadata.labels;
      expect(matches(service.spec.selector, pods)).toBe(true);
      expect(service.spec.ports).toEqual([{ name: 'http', port: process.port, targetPort: 'http' }]);
      // The ConfigMap's URLs name the Service and its port.
      const url = Object.values(config.data).find((value) => value.startsWith(`http://${process.name}:`));
      if (process.name !== 'rest-adapter') expect(url).toBe(`http://${process.name}:${process.port}/graphql`);
    }
  });

  it('sets requests and limits on every container, requests within limits, cv with Chromium the largest', () => {
    for (const workload of workloads(objects)) {
      for (const container of workload.spec.template.spec.containers) {
        const { requests = {}, limits = {} } = container.resources ?? {};
        for (const resource of ['cpu', 'memory']) {
          const at = `${workload.metadata.name} ${resource}`;
          expect({
            at,
            request: requests[resource] !== undefined,
            limit: limits[resource] !== undefined,
          }).toEqual({
            at,
            request: true,
            limit: true,
          });
          expect(quantity(requests[resource]!)).toBeLessThanOrEqual(quantity(limits[resource]!));
        }
      }
    }
    const memoryLimit = (name: string) =>
      quantity(
        named<Workload>(objects, 'Deployment', name).spec.template.spec.containers[0]!.resources!.limits!
          .memory!,
      );
    for (const other of PROCESSES.filter((p) => p.name !== 'cv')) {
      expect(memoryLimit('cv')).toBeGreaterThan(2 * memoryLimit(other.name));
    }
  });

  it('runs every container as the image user, read-only, unprivileged, with writable emptyDirs where needed', () => {
    for (const workload of workloads(objects)) {
      const pod = workload.spec.template.spec;
      expect({ name: workload.metadata.name, pod: pod.securityContext }).toEqual({
        name: workload.metadata.name,
        pod: {
          runAsNonRoot: true,
          runAsUser: 1000,
          runAsGroup: 1000,
          seccompProfile: { type: 'RuntimeDefault' },
        },
      });
      const emptyDirs = (pod.volumes ?? []).filter((v) => v.emptyDir !== undefined).map((v) => v.name);
      expect(emptyDirs.length).toBe(pod.volumes?.length ?? 0);
      for (const container of pod.containers) {
        expect(container.securityContext).toEqual({
          runAsNonRoot: true,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        const mounts = container.volumeMounts ?? [];
        expect(mounts.every((m) => emptyDirs.includes(m.name))).toBe(true);
        expect(mounts.map((m) => m.mountPath)).toContain('/tmp');
      }
    }
    // Chromium writes its profile under /tmp (Puppeteer's temporary user data dir, and shared
    // memory with --disable-dev-shm-usage) and its caches under $HOME.
    const cv = named<Workload>(objects, 'Deployment', 'cv').spec.template.spec.containers[0]!;
    const home = cv.env?.find((v) => v.name === 'HOME')?.value;
    expect(home).toBe('/home/node');
    expect(cv.volumeMounts?.map((m) => m.mountPath)).toContain(home);
  });

  it('gives secrets only by reference to the Secret the operator creates', () => {
    const configKeys = Object.keys(config.data);
    expect(configKeys.filter((key) => SECRET_VARIABLES.includes(key))).toEqual([]);
    const credentialInUrl = /:\/\/[^/\s]*:[^@/\s]*@/;
    expect(Object.entries(config.data).filter(([, value]) => credentialInUrl.test(value))).toEqual([]);
    for (const workload of workloads(objects)) {
      for (const container of workload.spec.template.spec.containers) {
        const env = container.env ?? [];
        const referenced = env.filter((v) => v.valueFrom?.secretKeyRef?.name === SECRET_NAME);
        expect(referenced.map((v) => [v.name, v.valueFrom!.secretKeyRef!.key])).toEqual(
          SECRET_VARIABLES.map((name) => [name, name]),
        );
        const written = env.filter((v) => v.value !== undefined);
        expect(
          written.filter((v) => SECRET_VARIABLES.includes(v.name) || credentialInUrl.test(v.value!)),
        ).toEqual([]);
        expect(container.envFrom).toEqual([{ configMapRef: { name: CONFIG_NAME } }]);
      }
    }
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
  });

  it('configures only variables common/config.ts reads, enough for loadConfig to start every process', () => {
    expect(Object.keys(config.data).filter((key) => !CONFIG_VARIABLES.includes(key))).toEqual([]);
    const secret = sampleSecret();
    for (const workload of workloads(objects)) {
      for (const container of workload.spec.template.spec.containers) {
        const env = environmentOf(objects, container, secret);
        const loaded = loadConfig(env);
        expect({ name: workload.metadata.name, env: loaded.nodeEnv }).toEqual({
          name: workload.metadata.name,
          env: 'production',
        });
        // Without the Secret, production's requirements refuse to start: the check above means something.
        expect(() => loadConfig(environmentOf(objects, container, {}))).toThrow(
          /WEBHOOK_SECRET_KEY: required in production[\s\S]*INTERNAL_SECRET: required in production/,
        );
      }
    }
  });

  it('starts without the Secret keys it marks optional, but for the mail driver the ConfigMap chooses', () => {
    const secret = sampleSecret();
    for (const workload of workloads(objects)) {
      for (const container of workload.spec.template.spec.containers) {
        const required = (container.env ?? []).flatMap((v) => {
          const ref = v.valueFrom?.secretKeyRef;
          return ref === undefined || ref.optional === true ? [] : [ref.key];
        });
        const start = () =>
          loadConfig(
            environmentOf(objects, container, Object.fromEntries(required.map((key) => [key, secret[key]!]))),
          );
        // secret.example.env says so: SMTP_URL is optional to Kubernetes, required by MAIL_DRIVER=smtp.
        if (config.data.MAIL_DRIVER === 'smtp')
          expect(start).toThrow(/SMTP_URL: required when MAIL_DRIVER is smtp/);
        else expect(start).not.toThrow();
      }
    }
  });

  it('gives every pod longer to stop than its preStop pause, its drain and its flush take', () => {
    const secret = sampleSecret();
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      const { shutdownTimeoutMs, shutdownDelayMs } = loadConfig(
        environmentOf(objects, pod.containers[0]!, secret),
      );
      const preStop = pod.containers[0]!.lifecycle?.preStop?.exec?.command ?? [];
      expect(preStop.slice(0, 1)).toEqual(['sleep']);
      const pause = Number(preStop[1]);
      expect(pause).toBeGreaterThan(0);
      const chromium = deployment.metadata.name === 'cv' ? CLOSE_GRACE_MS : 0;
      const needed = pause + (shutdownDelayMs + shutdownTimeoutMs + FLUSH_TIMEOUT_MS + chromium) / 1000;
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(needed);
    }
  });

  it('autoscales gateway, rest-adapter, tickets and cv, and leaves their replicas to the autoscaler', () => {
    const autoscalers = ofKind<
      KubeObject & {
        spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number; maxReplicas: number };
      }
    >(objects, 'HorizontalPodAutoscaler');
    expect(autoscalers.map((a) => a.spec.scaleTargetRef.name).sort()).toEqual([...AUTOSCALED].sort());
    for (const autoscaler of autoscalers) {
      const target = named<Workload>(objects, 'Deployment', autoscaler.spec.scaleTargetRef.name);
      expect(target.spec.replicas).toBeUndefined();
      expect(autoscaler.spec.maxReplicas).toBeGreaterThan(autoscaler.spec.minReplicas);
      if (rendering === 'production') expect(autoscaler.spec.minReplicas).toBeGreaterThanOrEqual(2);
    }
    if (rendering === 'production') {
      for (const deployment of deployments.filter((d) => !AUTOSCALED.includes(d.metadata.name))) {
        expect({ name: deployment.metadata.name, replicas: deployment.spec.replicas }).toEqual({
          name: deployment.metadata.name,
          replicas: expect.any(Number) as number,
        });
        expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it('bounds disruptions and spreads the pods of every Deployment across nodes', () => {
    const budgets = ofKind<
      KubeObject & { spec: { maxUnavailable?: number; selector: { matchLabels: Record<string, string> } } }
    >(objects, 'PodDisruptionBudget');
    for (const deployment of deployments) {
      const labels = deployment.spec.template.metadata.labels;
      const covering = budgets.filter((b) => matches(b.spec.selector.matchLabels, labels));
      expect({ name: deployment.metadata.name, budgets: covering.length }).toEqual({
        name: deployment.metadata.name,
        budgets: 1,
      });
      const spread = deployment.spec.template.spec.topologySpreadConstraints ?? [];
      expect(
        spread.some(
          (c) => c.topologyKey === 'kubernetes.io/hostname' && matches(c.labelSelector?.matchLabels, labels),
        ),
      ).toBe(true);
    }
  });

  it('admits to each process only those the code says call it, and the public only to the doors', () => {
    const policies = ofKind<Policy>(objects, 'NetworkPolicy');
    const defaultDeny = policies.filter(
      (p) =>
        Object.keys(p.spec.podSelector).length === 0 &&
        p.spec.policyTypes?.includes('Ingress') &&
        p.spec.ingress === undefined,
    );
    expect(defaultDeny).toHaveLength(1);
    for (const process of PROCESSES) {
      const labels = named<Workload>(objects, 'Deployment', process.name).spec.template.metadata.labels;
      const rules = policies
        .filter((p) => matches(p.spec.podSelector.matchLabels, labels))
        .flatMap((p) => p.spec.ingress ?? []);
      // A rule without `from` admits everyone; one without `ports` every port.
      expect(
        rules.filter((r) => r.from === undefined || r.from.length === 0 || r.ports === undefined),
      ).toEqual([]);
      const onPort = (port: string) => rules.filter((r) => r.ports!.some((p) => p.port === port));
      const peers = onPort('http').flatMap((r) => r.from!);
      const pods = peers
        .filter((p) => p.namespaceSelector === undefined)
        .map((p) => p.podSelector?.matchLabels?.['app.kubernetes.io/name']);
      const outside = peers.filter((p) => p.namespaceSelector !== undefined);
      expect({ process: process.name, pods: pods.sort() }).toEqual({
        process: process.name,
        pods: callersOf(process.name).sort(),
      });
      expect({ process: process.name, fromOutside: outside.length > 0 }).toEqual({
        process: process.name,
        fromOutside: DOORS.includes(process.name),
      });
      // Prometheus, from its namespace, on the metrics port.
      const scrapers = onPort('metrics').flatMap((r) => r.from!);
      expect(scrapers.length).toBeGreaterThan(0);
    }
  });

  it('routes the public to the REST adapter and the gateway only, WebSockets kept open', () => {
    const ingress = named<
      KubeObject & {
        spec: { rules: { http: { paths: { path: string; backend: { service: { name: string } } }[] } }[] };
      }
    >(objects, 'Ingress', 'nida');
    const routes = ingress.spec.rules.flatMap((rule) =>
      rule.http.paths.map((p) => [p.path, p.backend.service.name] as const),
    );
    expect([...new Set(routes.map(([, service]) => service))].sort()).toEqual([...DOORS].sort());
    expect(routes).toContainEqual(['/graphql', 'gateway']);
    expect(routes).toContainEqual(['/api/v1', 'rest-adapter']);
    expect(routes.filter(([path]) => /healthz|readyz|metrics/.test(path))).toEqual([]);
    const annotations = (ingress.metadata.annotations ?? {}) as Record<string, string>;
    for (const timeout of ['proxy-read-timeout', 'proxy-send-timeout']) {
      expect(Number(annotations[`nginx.ingress.kubernetes.io/${timeout}`])).toBeGreaterThanOrEqual(3600);
    }
    expect(config.data.TRUSTED_PROXIES).not.toBe('');
    expect(config.data.PUBLIC_LIVE_URL).toMatch(/^wss?:\/\/[^/]+\/graphql$/);
  });

  it('scrapes every process on the port its pods name metrics', () => {
    const monitors = ofKind<
      KubeObject & {
        spec: { selector: { matchLabels: Record<string, string> }; podMetricsEndpoints: { port: string }[] };
      }
    >(objects, 'PodMonitor');
    for (const deployment of deployments) {
      const labels = deployment.spec.template.metadata.labels;
      const scraping = monitors.filter((m) => matches(m.spec.selector.matchLabels, labels));
      expect(scraping.flatMap((m) => m.spec.podMetricsEndpoints.map((e) => e.port))).toEqual(['metrics']);
      const ports = deployment.spec.template.spec.containers.flatMap((c) => c.ports ?? []);
      expect(ports.some((p) => p.name === 'metrics')).toBe(true);
    }
  });

  it('migrates and seeds in a Job applied, with the ConfigMap, before the rollout', () => {
    const job = named<Workload>(objects, 'Job', 'migrate');
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    const command = job.spec.template.spec.containers[0]!.command!.join(' ');
    expect(command).toMatch(/node dist\/tools\/migrate\.js && node dist\/tools\/seed\.js/);
    const first = objects.filter((o) => o.metadata.labels?.['nida/before-rollout'] === 'true');
    expect(first.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'ConfigMap/nida-config',
      'Job/migrate',
    ]);
  });

  if (rendering === 'production') {
    it('runs in its namespace, on released images, at public URLs over TLS', () => {
      expect([...new Set(objects.map((o) => o.metadata.namespace))]).toEqual(['nida']);
      for (const workload of workloads(objects)) {
        for (const container of workload.spec.template.spec.containers) {
          expect(container.image).not.toMatch(/:local$|^nida\//);
        }
      }
      expect(config.data.PUBLIC_BASE_URL).toMatch(/^https:\/\//);
      expect(config.data.PUBLIC_LIVE_URL).toMatch(/^wss:\/\//);
    });
  }
});

describe('deploy/kubernetes/secret.example.env', () => {
  const entries = envFileEntries(secretFile);

  it('lists variables common/config.ts reads, each with a comment and no value', () => {
    expect(entries.filter((e) => !CONFIG_VARIABLES.includes(e.name))).toEqual([]);
    expect(entries.filter((e) => e.value !== '' || !e.commented)).toEqual([]);
  });

  it('lists every variable that holds a secret or a URL with a password in it', () => {
    const secretShaped = CONFIG_VARIABLES.filter((name) =>
      /(^|_)(SECRET|TOKEN|PASSWORD|PRIVATE)(_|$)/.test(name),
    );
    // URLs of services that authenticate with a password in the URL.
    const withCredentials = ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL'];
    expect(SECRET_VARIABLES).toEqual(expect.arrayContaining([...secretShaped, ...withCredentials]));
  });
});
