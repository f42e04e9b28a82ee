import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * A small kustomize: the part of it deploy/kubernetes uses, so the manifests can be rendered and
 * checked where no kubectl is installed (test/kubernetes.spec.ts compares it with `kubectl
 * kustomize` where one is). It refuses every field and every case it does not implement, rather
 * than rendering something kustomize would render otherwise.
 *
 *   resources   files of objects and directories holding a kustomization.yaml
 *   patches     strategic merge patches from files (`path:`), matched by kind and name
 *   labels      `pairs` added to every object's metadata.labels (not to selectors nor templates)
 *   namespace   set on every object
 *   replicas    spec.replicas of the Deployments named
 *   images      newName, newTag or digest of the pod templates' containers' images
 *
 * Applied in kustomize's order: patches, namespace, labels, replicas, images.
 *
 *   node dist/tools/kustomize.js deploy/kubernetes/overlays/production [--counts]
 */

/** One Kubernetes object as a manifest holds it. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

const KUSTOMIZATION_FILE = 'kustomization.yaml';
const KUSTOMIZATION_FIELDS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'patches',
  'labels',
  'namespace',
  'replicas',
  'images',
]);

/** The kinds whose every instance lives in a namespace, so `namespace:` applies to all of them. */
const NAMESPACED_KINDS = new Set([
  'ConfigMap',
  'Deployment',
  'HorizontalPodAutoscaler',
  'Ingress',
  'Job',
  'NetworkPolicy',
  'PodDisruptionBudget',
  'PodMonitor',
  'Service',
]);

/** Kinds whose pod template is at spec.template (images) and which have spec.replicas (replicas). */
const POD_TEMPLATE_KINDS = new Set(['Deployment', 'Job']);
const REPLICATED_KINDS = new Set(['Deployment']);

/**
 * Lists a strategic merge patch merges item by item, by this key (the API's patchMergeKey); a
 * list anywhere else is refused when both sides have it, since the API decides per field whether
 * it is merged or replaced.
 */
const MERGE_KEYS: Record<string, string> = { containers: 'name' };

export class KustomizeError extends Error {
  constructor(where: string, problem: string) {
    super(`${where}: ${problem}`);
    this.name = 'KustomizeError';
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every document of a YAML file. YAML 1.1, as kubectl reads it (`yes` and `on` are booleans), so
 * a value that kubectl would read differently renders differently here too.
 */
export function parseYamlDocuments(text: string, where: string): Json[] {
  return parseAllDocuments(text, { version: '1.1' }).flatMap((document, index) => {
    if (document.errors.length > 0) {
      throw new KustomizeError(`${where} document ${index + 1}`, document.errors[0]!.message);
    }
    const value = document.toJS({ maxAliasCount: 0 }) as Json;
    return value === null ? [] : [value];
  });
}

function asObject(value: Json, where: string): KubeObject {
  if (!isObject(value)) throw new KustomizeError(where, 'is not an object');
  const metadata = value.metadata;
  if (typeof value.apiVersion !== 'string' || typeof value.kind !== 'string') {
    throw new KustomizeError(where, 'has no apiVersion or kind');
  }
  if (!isObject(metadata) || typeof metadata.name !== 'string') {
    throw new KustomizeError(where, 'has no metadata.name');
  }
  return value as unknown as KubeObject;
}

const idOf = (object: Pick<KubeObject, 'kind' | 'metadata'>) =>
  `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;

function readObjects(file: string): KubeObject[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), file).map((value, index) =>
    asObject(value, `${file} document ${index + 1}`),
  );
}

function stringList(value: Json | undefined, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new KustomizeError(where, 'must be a list of strings');
  }
  return value;
}

/** Refuses any field of `value` but `allowed`, naming where it was found. */
function onlyFields(value: Json, allowed: string[], where: string): JsonObject {
  if (!isObject(value)) throw new KustomizeError(where, 'must be a mapping');
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw new KustomizeError(where, `${unknown.join(', ')} not implemented (only ${allowed.join(', ')})`);
  }
  return value;
}

/** A strategic merge of `patch` into `target`, for maps, scalars and the lists of MERGE_KEYS. */
function strategicMerge(target: Json | undefined, patch: Json, path: string): Json {
  if (patch === null) throw new KustomizeError(path, 'null (delete) in a patch is not implemented');
  if (isObject(patch)) {
    const directive = Object.keys(patch).find((key) => key.startsWith('$'));
    if (directive !== undefined)
      throw new KustomizeError(path, `patch directive ${directive} is not implemented`);
    if (!isObject(target)) return patch;
    const merged: JsonObject = { ...target };
    for (const [key, value] of Object.entries(patch))
      merged[key] = strategicMerge(target[key], value, `${path}.${key}`);
    return merged;
  }
  if (Array.isArray(patch) && Array.isArray(target)) {
    const field = path.slice(path.lastIndexOf('.') + 1);
    const key = MERGE_KEYS[field];
    if (key === undefined) throw new KustomizeError(path, 'merging this list is not implemented');
    const merged = [...target];
    for (const item of patch) {
      if (!isObject(item) || item[key] === undefined)
        throw new KustomizeError(path, `an item without ${key}`);
      const at = merged.findIndex((existing) => isObject(existing) && existing[key] === item[key]);
      if (at === -1) merged.push(item);
      else merged[at] = strategicMerge(merged[at], item, `${path}[${key}=${JSON.stringify(item[key])}]`);
    }
    return merged;
  }
  return patch;
}

function applyPatches(objects: KubeObject[], files: string[], where: string): KubeObject[] {
  let result = objects;
  for (const file of files) {
    for (const patch of readObjects(file)) {
      const matches = result.filter(
        (object) =>
          object.kind === patch.kind &&
          object.apiVersion === patch.apiVersion &&
          object.metadata.name === patch.metadata.name &&
          (patch.metadata.namespace === undefined || object.metadata.namespace === patch.metadata.namespace),
      );
      if (matches.length !== 1) {
        throw new KustomizeError(
          `${where} patch ${file}`,
          `${idOf(patch)} matches ${matches.length} objects, not 1`,
        );
      }
      result = result.map((object) =>
        object === matches[0]
          ? (strategicMerge(
              object as unknown as Json,
              patch as unknown as Json,
              idOf(object),
            ) as unknown as KubeObject)
          : object,
      );
    }
  }
  return result;
}

function setNamespace(objects: KubeObject[], namespace: string, where: string): KubeObject[] {
  return objects.map((object) => {
    if (!NAMESPACED_KINDS.has(object.kind)) {
      throw new KustomizeError(where, `namespace on a ${object.kind} is not implemented`);
    }
    return { ...object, metadata: { ...object.metadata, namespace } };
  });
}

function addLabels(objects: KubeObject[], entries: Json, where: string): KubeObject[] {
  if (!Array.isArray(entries)) throw new KustomizeError(where, 'labels must be a list');
  let result = objects;
  entries.forEach((entry, index) => {
    const at = `${where} labels[${index}]`;
    const { pairs, includeSelectors, includeTemplates } = onlyFields(
      entry,
      ['pairs', 'includeSelectors', 'includeTemplates'],
      at,
    );
    if (includeSelectors === true || includeTemplates === true) {
      throw new KustomizeError(at, 'includeSelectors and includeTemplates are not implemented');
    }
    if (!isObject(pairs) || !Object.values(pairs).every((value) => typeof value === 'string')) {
      throw new KustomizeError(at, 'pairs must map label names to strings');
    }
    result = result.map((object) => ({
      ...object,
      metadata: {
        ...object.metadata,
        labels: { ...object.metadata.labels, ...(pairs as Record<string, string>) },
      },
    }));
  });
  return result;
}

function setReplicas(objects: KubeObject[], entries: Json, where: string): KubeObject[] {
  if (!Array.isArray(entries)) throw new KustomizeError(where, 'replicas must be a list');
  let result = objects;
  entries.forEach((entry, index) => {
    const at = `${where} replicas[${index}]`;
    const { name, count } = onlyFields(entry, ['name', 'count'], at);
    if (typeof name !== 'string' || typeof count !== 'number') {
      throw new KustomizeError(at, 'needs a name and a number count');
    }
    const targets = result.filter((o) => o.metadata.name === name && REPLICATED_KINDS.has(o.kind));
    if (targets.length === 0) throw new KustomizeError(at, `no Deployment named ${name}`);
    result = result.map((object) =>
      targets.includes(object)
        ? { ...object, spec: { ...(object.spec as JsonObject), replicas: count } }
        : object,
    );
  });
  return result;
}

/** `registry/name:tag@digest` as its name and the rest. */
function splitImage(image: string): { name: string; tag: string | undefined; digest: string | undefined } {
  const [withTag = '', digest] = image.split('@');
  const slash = withTag.lastIndexOf('/');
  const colon = withTag.lastIndexOf(':');
  return colon > slash
    ? { name: withTag.slice(0, colon), tag: withTag.slice(colon + 1), digest }
    : { name: withTag, tag: undefined, digest };
}

function setImages(objects: KubeObject[], entries: Json, where: string): KubeObject[] {
  if (!Array.isArray(entries)) throw new KustomizeError(where, 'images must be a list');
  const rules = entries.map((entry, index) => {
    const at = `${where} images[${index}]`;
    const rule = onlyFields(entry, ['name', 'newName', 'newTag', 'digest'], at);
    if (!Object.values(rule).every((value) => typeof value === 'string') || rule.name === undefined) {
      throw new KustomizeError(at, 'needs a name, and newName, newTag and digest as strings');
    }
    return rule as { name: string; newName?: string; newTag?: string; digest?: string };
  });
  const renamed = (image: string) => {
    const parts = splitImage(image);
    const rule = rules.find((r) => r.name === parts.name);
    if (rule === undefined) return image;
    const name = rule.newName ?? parts.name;
    if (rule.digest !== undefined) return `${name}@${rule.digest}`;
    const tag = rule.newTag ?? parts.tag;
    return `${name}${tag === undefined ? '' : `:${tag}`}${parts.digest === undefined ? '' : `@${parts.digest}`}`;
  };
  return objects.map((object) => {
    const pod = (object.spec as { template?: { spec?: JsonObject } } | undefined)?.template?.spec;
    if (!POD_TEMPLATE_KINDS.has(object.kind) || pod === undefined) return object;
    const withImages = (list: Json | undefined) =>
      Array.isArray(list)
        ? list.map((c) =>
            isObject(c) && typeof c.image === 'string' ? { ...c, image: renamed(c.image) } : c,
          )
        : list;
    const spec = object.spec as JsonObject & { template: JsonObject & { spec: JsonObject } };
    const podSpec: JsonObject = { ...pod, containers: withImages(pod.containers) as Json };
    if (pod.initContainers !== undefined) podSpec.initContainers = withImages(pod.initContainers) as Json;
    return { ...object, spec: { ...spec, template: { ...spec.template, spec: podSpec } } };
  });
}

/** The objects `kubectl kustomize <directory>` prints, in no particular order. */
export function renderKustomization(directory: string): KubeObject[] {
  const file = join(directory, KUSTOMIZATION_FILE);
  if (!existsSync(file)) throw new KustomizeError(directory, `no ${KUSTOMIZATION_FILE}`);
  const [document, ...more] = parseYamlDocuments(readFileSync(file, 'utf8'), file);
  if (document === undefined || more.length > 0) throw new KustomizeError(file, 'must hold one document');
  const k = onlyFields(document, [...KUSTOMIZATION_FIELDS], file);
  if (k.apiVersion !== 'kustomize.config.k8s.io/v1beta1' || k.kind !== 'Kustomization') {
    throw new KustomizeError(file, 'must be apiVersion kustomize.config.k8s.io/v1beta1, kind Kustomization');
  }

  let objects = stringList(k.resources, `${file} resources`).flatMap((entry) => {
    if (/^[a-z]+:\/\//.test(entry))
      throw new KustomizeError(file, `remote resource ${entry} is not implemented`);
    const path = resolve(directory, entry);
    if (!existsSync(path)) throw new KustomizeError(file, `resource ${entry} does not exist`);
    return statSync(path).isDirectory() ? renderKustomization(path) : readObjects(path);
  });
  const seen = new Set<string>();
  for (const object of objects) {
    if (seen.has(idOf(object))) throw new KustomizeError(file, `${idOf(object)} is defined twice`);
    seen.add(idOf(object));
  }

  const patchFiles = ((k.patches as Json[] | undefined) ?? []).map((entry, index) => {
    const { path } = onlyFields(entry, ['path'], `${file} patches[${index}]`);
    if (typeof path !== 'string')
      throw new KustomizeError(`${file} patches[${index}]`, 'path must be a string');
    return resolve(directory, path);
  });
  objects = applyPatches(objects, patchFiles, file);
  if (k.namespace !== undefined) {
    if (typeof k.namespace !== 'string') throw new KustomizeError(file, 'namespace must be a string');
    objects = setNamespace(objects, k.namespace, file);
  }
  if (k.labels !== undefined) objects = addLabels(objects, k.labels, file);
  if (k.replicas !== undefined) objects = setReplicas(objects, k.replicas, file);
  if (k.images !== undefined) objects = setImages(objects, k.images, file);
  return objects;
}

/** How many objects of each kind, by kind's name. */
export function countKinds(objects: KubeObject[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const object of [...objects].sort((a, b) => a.kind.localeCompare(b.kind))) {
    counts[object.kind] = (counts[object.kind] ?? 0) + 1;
  }
  return counts;
}

function main(): void {
  const [directory, option] = process.argv.slice(2);
  if (directory === undefined || (option !== undefined && option !== '--counts')) {
    process.stderr.write('usage: node dist/tools/kustomize.js DIRECTORY [--counts]\n');
    process.exit(2);
  }
  const objects = renderKustomization(resolve(directory));
  const out = option === '--counts' ? { total: objects.length, kinds: countKinds(objects) } : objects;
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`kustomize: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
