import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { parse } from 'yaml';
import { z } from 'zod';
import { projectRoot } from '../common/paths';
import {
  type LocatedExpression,
  parsePromQL,
  sampleNames,
  sampleNamesInExposition,
  unexportedMetrics,
} from './support/promql';

const read = (path: string) => readFileSync(join(projectRoot(), path), 'utf8');

/** Each process's public port (README); its metrics listen 5000 above it (issue 26). */
const PUBLIC_PORTS = {
  'rest-adapter': 3000,
  gateway: 4000,
  tickets: 4001,
  cv: 4002,
  billing: 4003,
  'tickets-events': 4004,
  identity: 4005,
} as const;
const PROCESSES = Object.keys(PUBLIC_PORTS).sort();

const metricsFile = z.object({
  families: z.array(
    z.object({
      name: z.string().regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/),
      type: z.enum(['counter', 'gauge', 'histogram', 'summary']),
      labels: z.array(z.string()),
      jobs: z.array(z.enum(PROCESSES as [string, ...string[]])).min(1),
      values: z.record(z.string(), z.array(z.string())).optional(),
    }),
  ),
});
const { families } = metricsFile.parse(JSON.parse(read('deploy/metrics.json')));

const alertsFile = z.object({
  groups: z.array(
    z.object({
      name: z.string(),
      rules: z.array(
        z.object({
          alert: z.string().regex(/^Nida[A-Z][A-Za-z]+$/),
          expr: z.string().min(1),
          for: z.string().regex(/^\d+[smh]$/),
          labels: z.object({ severity: z.enum(['critical', 'warning']) }),
          annotations: z.object({
            summary: z.string().min(1),
            description: z.string().min(1),
            runbook: z.string().regex(/^docs\/OPERATIONS\.md#[a-z0-9-]+$/),
          }),
        }),
      ),
    }),
  ),
});
const rules = alertsFile
  .parse(parse(read('deploy/prometheus/alerts.yml')))
  .groups.flatMap((group) => group.rules);

interface Panel {
  id: number;
  title: string;
  type: string;
  datasource?: { uid: string };
  targets?: { expr: string; datasource?: { uid: string } }[];
  panels?: Panel[];
}
const dashboard = JSON.parse(read('deploy/grafana/dashboards/nida-platform.json')) as { panels: Panel[] };
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);

/** Grafana fills these in before Prometheus sees the query; a fixed range parses the same. */
const withGrafanaVariables = (expr: string) => expr.replace(/\$__(rate_interval|interval|range)/g, '5m');

const expressions: LocatedExpression[] = [
  ...rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
  ...panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      where: `panel "${panel.title}"`,
      expr: withGrafanaVariables(target.expr),
    })),
  ),
];

/**
 * Matchers that can select nothing: a value (or a regex matching no value) outside what
 * deploy/metrics.json lists for that label; `job` is always one of the processes.
 */
function impossibleMatchers(located: readonly LocatedExpression[]): string[] {
  const valuesOf = new Map<string, Record<string, string[]>>();
  for (const family of families) {
    for (const sample of sampleNames([family])) valuesOf.set(sample, { ...family.values, job: PROCESSES });
  }
  return located.flatMap(({ where, expr }) =>
    parsePromQL(expr).selectors.flatMap(({ metric, matchers }) =>
      matchers
        .filter(({ label, op, value }) => {
          const known = (valuesOf.get(metric ?? '') ?? { job: PROCESSES })[label];
          if (known === undefined) return false;
          if (op === '=') return !known.includes(value);
          if (op === '=~') return !known.some((v) => new RegExp(`^(?:${value})$`).test(v));
          return false;
        })
        .map(({ label, op, value }) => `${where}: ${metric}{${label}${op}"${value}"}`),
    ),
  );
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const operations = read('docs/OPERATIONS.md');
const anchors = new Set(
  [...operations.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? '')).filter(Boolean),
);

describe('alert rules and the dashboard', () => {
  it('has expressions to check', () => {
    expect(rules.length).toBeGreaterThanOrEqual(8);
    expect(expressions.length).toBeGreaterThan(rules.length + 30);
  });

  it.each(expressions.map((e) => [e.where, e.expr] as const))('%s parses as PromQL', (_where, expr) => {
    expect(parsePromQL(expr).errors).toEqual([]);
  });

  it('names only metrics the processes export (deploy/metrics.json)', () => {
    expect(unexportedMetrics(expressions, sampleNames(families))).toEqual([]);
  });

  it('matches only on labels a metric carries', () => {
    const labelsOf = new Map<string, Set<string>>();
    for (const family of families) {
      // Prometheus adds job and instance to every series it scrapes; buckets carry le.
      for (const sample of sampleNames([family])) {
        const extra = sample.endsWith('_bucket') ? ['le'] : [];
        labelsOf.set(sample, new Set([...family.labels, 'job', 'instance', ...extra]));
      }
    }
    const unknown = expressions.flatMap(({ where, expr }) =>
      parsePromQL(expr).selectors.flatMap(({ metric, labels }) => {
        const allowed = labelsOf.get(metric ?? '') ?? new Set(['job', 'instance']);
        return labels.filter((label) => !allowed.has(label)).map((label) => `${where}: ${metric}{${label}}`);
      }),
    );
    expect(unknown).toEqual([]);
  });

  it('matches only on label values a metric can have', () => {
    expect(impossibleMatchers(expressions)).toEqual([]);
  });

  it('fails an expression that does not parse or names an unexported metric', () => {
    expect(parsePromQL('rate(nida_outbox_pending[5m)').errors).not.toEqual([]);
    expect(
      impossibleMatchers([
        { where: 'x', expr: 'nida_webhook_deliveries_total{result="given_up"} + up{job=~"events|gateway"}' },
      ]),
    ).toEqual(['x: nida_webhook_deliveries_total{result="given_up"}']);
    expect(unexportedMetrics([{ where: 'x', expr: 'nida_outbox_lag > 1' }], sampleNames(families))).toEqual([
      { where: 'x', metric: 'nida_outbox_lag' },
    ]);
    expect(
      unexportedMetrics(
        [{ where: 'x', expr: 'rate(nida_webhook_delivery_duration_seconds_bucket[5m]) and up == 0' }],
        sampleNames(families),
      ),
    ).toEqual([]);
  });

  it('gives every alert a unique name, and a runbook that is a section of docs/OPERATIONS.md', () => {
    const names = rules.map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    const missing = rules.filter((rule) => !anchors.has(rule.annotations.runbook.split('#')[1] ?? ''));
    expect(missing.map((rule) => rule.alert)).toEqual([]);
  });

  it('reads every panel from the provisioned Prometheus data source', () => {
    const provisioned = z
      .object({ datasources: z.array(z.object({ uid: z.string(), type: z.string() })) })
      .parse(parse(read('deploy/grafana/provisioning/datasources/datasources.yml')));
    const prometheus = provisioned.datasources.find((d) => d.type === 'prometheus')?.uid;
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const elsewhere = panels
      .filter((p) => p.type !== 'row')
      .filter(
        (p) => p.datasource?.uid !== prometheus || p.targets?.some((t) => t.datasource?.uid !== prometheus),
      );
    expect(elsewhere.map((p) => p.title)).toEqual([]);
  });
});

describe('deploy/metrics.json', () => {
  it("lists the runtime metrics as prom-client's collectDefaultMetrics serves them", async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const served = (await registry.getMetricsAsJSON()).map((m) => `${m.name} ${m.type}`);
    registry.clear();
    const listed = families
      .filter((f) => /^(process|nodejs)_/.test(f.name))
      .map((f) => `${f.name} ${f.type}`);
    expect(listed.sort()).toEqual(served.sort());
  });

  it('has every family described in docs/OPERATIONS.md', () => {
    expect(families.filter((f) => !operations.includes(`\`${f.name}`)).map((f) => f.name)).toEqual([]);
  });
});

describe('deploy/prometheus/prometheus.yml', () => {
  const config = z
    .object({
      rule_files: z.array(z.string()),
      scrape_configs: z.array(
        z.object({
          job_name: z.string(),
          static_configs: z.array(z.object({ targets: z.array(z.string()) })),
        }),
      ),
    })
    .parse(parse(read('deploy/prometheus/prometheus.yml')));

  it("scrapes each process's metrics port by its compose service name, one job per process", () => {
    const scraped = Object.fromEntries(
      config.scrape_configs.map((c) => [c.job_name, c.static_configs.flatMap((s) => s.targets)]),
    );
    const expected = Object.fromEntries(
      Object.entries(PUBLIC_PORTS).map(([name, port]) => [name, [`${name}:${port + 5000}`]]),
    );
    expect(scraped).toEqual(expected);
  });

  it('loads the alert rules', () => {
    expect(config.rule_files).toEqual(['alerts.yml']);
  });
});

/**
 * The same check against what the running processes serve, when METRICS_URLS names their
 * /metrics endpoints (comma-separated, e.g. http://127.0.0.1:9000/metrics,…).
 */
const scrapeUrls = (process.env.METRICS_URLS ?? '').split(',').filter(Boolean);
(scrapeUrls.length > 0 ? describe : describe.skip)('against the running processes (METRICS_URLS)', () => {
  it('names only metrics they serve', async () => {
    const served = await Promise.all(
      scrapeUrls.map(async (url) => sampleNamesInExposition(await (await fetch(url)).text())),
    );
    expect(unexportedMetrics(expressions, served.flat())).toEqual([]);
  });
});
