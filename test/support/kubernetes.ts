import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import type { Model } from '@kubernetes-models/base';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { parse } from 'yaml';
import { projectRoot } from '../../common/paths';
import type { KubeObject } from '../../tools/kustomize';

type ModelClass = (new (data: never) => Model<unknown>) & {
  apiVersion: string;
  kind: string;
  prototype: { validate(this: unknown): void };
};

/** The API schema of every kind deploy/kubernetes may hold; any other kind is refused. */
const MODELS: ModelClass[] = [
  ConfigMap,
  Service,
  Deployment,
  Job,
  HorizontalPodAutoscaler,
  PodDisruptionBudget,
  NetworkPolicy,
  Ingress,
  PodMonitor,
];

function modelOf(object: KubeObject): ModelClass {
  const model = MODELS.find((m) => m.apiVersion === object.apiVersion && m.kind === object.kind);
  if (model === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind} in MODELS`);
  return model;
}

/**
 * The schema's verdict on an object, and the fields it does not know. kubernetes-models' validate()
 * checks types, formats and required fields, but lets an unknown field through (its schemas allow
 * additional properties), so a misspelt `readinesProbe` would pass. The compiled validator reads
 * every property its schema declares, and every key of a map-typed object (labels, limits), so a
 * key it never read is one the schema does not have: the object is validated again through a
 * Proxy that records what was read.
 */
export function schemaProblems(object: KubeObject): string[] {
  const model = modelOf(object);
  try {
    new model(object as never).validate();
  } catch (error) {
    return [(error as Error).message];
  }
  const read = new WeakMap<object, Set<string>>();
  const proxies = new WeakMap<object, object>();
  const watched = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const known = proxies.get(value);
    if (known !== undefined) return known;
    const keys = new Set<string>();
    read.set(value, keys);
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        if (typeof key === 'string') keys.add(key);
        return watched(Reflect.get(target, key, receiver));
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  model.prototype.validate.call(watched(object));
  const unknown: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}[${index}]`));
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (!read.get(value)?.has(key)) unknown.push(`${path}.${key}: not a field of ${object.kind}`);
        walk(child, `${path}.${key}`);
      }
    }
  };
  walk(object, '');
  return unknown;
}

/** One process of the platform as docker-compose.yml runs it. */
export interface PlatformProcess {
  name: string;
  /** The Dockerfile target its image is built from. */
  target: 'service' | 'cv';
  command: string[];
  /** Where /healthz and /readyz are served; metrics on port + 5000. */
  port: number;
  /** Its entry in the sources, e.g. subgraphs/tickets/events/main.ts. */
  entry: string;
}

interface ComposeService {
  build?: { target?: string };
  command?: string[];
  healthcheck?: { test?: string[] };
  profiles?: string[];
}

/** The long-running processes of docker-compose.yml, which the Kubernetes manifests run too. */
export function platformProcesses(): PlatformProcess[] {
  const compose = parse(readFileSync(join(projectRoot(), 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  return Object.entries(compose.services).flatMap(([name, service]) => {
    // node [V8 flags…] script: the flags (the gateway's young generation) start with dashes.
    const script = service.command?.slice(1).find((part) => !part.startsWith('-'));
    const probe = service.healthcheck?.test?.find((part) => part.endsWith('/readyz'));
    if (service.command?.[0] !== 'node' || script === undefined || probe === undefined) return [];
    const target = service.build?.target;
    if (target !== 'service' && target !== 'cv') throw new Error(`${name}: image target ${target}`);
    return [
      {
        name,
        target,
        command: service.command,
        port: Number(new URL(probe).port),
        entry: script.replace(/^dist\//, '').replace(/\.js$/, '.ts'),
      },
    ];
  });
}

/** The files a module loads when it runs: its imports and requires, `import type` left out. */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        clause?.isTypeOnly === true ||
        (clause?.name === undefined &&
          named !== undefined &&
          ts.isNamedImports(named) &&
          named.elements.length > 0 &&
          named.elements.every((element) => element.isTypeOnly));
      if (!typeOnly) specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers.flatMap((specifier) => {
    if (!specifier.startsWith('.')) return [];
    const base = resolve(dirname(file), specifier);
    const found = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
    return found === undefined ? [] : [found];
  });
}

/** Every source file a process entry loads, itself included. */
function loadedFiles(entry: string): string[] {
  const seen = new Set([resolve(projectRoot(), entry)]);
  for (const file of seen) for (const next of runtimeImports(file)) seen.add(next);
  return [...seen];
}

const SUBGRAPHS = ['tickets', 'cv', 'billing', 'identity'] as const;

/**
 * Where the calls between processes are written: a SubgraphClient made for a subgraph by name, the
 * gateway's use of every subgraph's URL, the adapter's use of the gateway's. The files that define
 * the mechanism (the client, the configuration) are not calls themselves.
 */
const CALLS: { pattern: RegExp; targets: (match: RegExpExecArray) => string[] }[] = [
  { pattern: /SubgraphClient\.of\([^)]*?'(\w+)'\)/g, targets: (match) => [match[1]!] },
  { pattern: /config\.subgraphUrls\[/g, targets: () => [...SUBGRAPHS] },
  { pattern: /config\.subgraphUrls\.(\w+)/g, targets: (match) => [match[1]!] },
  { pattern: /config\.gatewayUrl\b/g, targets: () => ['gateway'] },
];
const MECHANISM = ['common/subgraph-call.ts', 'common/config.ts'];

/** The processes each process calls over HTTP, read from the code its entry loads. */
export function callsBetweenProcesses(processes: PlatformProcess[]): Map<string, Set<string>> {
  return new Map(
    processes.map((process) => {
      const called = new Set<string>();
      for (const file of loadedFiles(process.entry)) {
        if (MECHANISM.includes(relative(projectRoot(), file))) continue;
        const text = readFileSync(file, 'utf8');
        for (const { pattern, targets } of CALLS) {
          for (const match of text.matchAll(pattern)) for (const target of targets(match)) called.add(target);
        }
      }
      called.delete(process.name);
      return [process.name, called];
    }),
  );
}

/** A Kubernetes quantity ("250m", "1", "320Mi", "1Gi") as a number of cores or bytes. */
export function quantity(value: string | number): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(value);
  if (match === null) throw new Error(`"${value}" is not a quantity this test reads`);
  const units: Record<string, number> = {
    m: 1e-3,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  };
  return Number(match[1]) * (match[2] === undefined ? 1 : units[match[2]]!);
}

/** `KEY=value` lines of an env file, with whether a comment line stands right above each. */
export function envFileEntries(text: string): { name: string; value: string; commented: boolean }[] {
  const lines = text.split('\n');
  return lines.flatMap((line, index) => {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match === null) return [];
    const above = lines.slice(0, index).reverse();
    const block = above.findIndex((l) => !/^[A-Z][A-Z0-9_]*=/.test(l));
    return [{ name: match[1]!, value: match[2]!, commented: above[block]?.startsWith('#') ?? false }];
  });
}
