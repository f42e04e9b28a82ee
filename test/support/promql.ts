import { parser } from '@prometheus-io/lezer-promql';
import type { SyntaxNode } from '@lezer/common';

/** A label matcher: `label op "value"`, op one of `=`, `!=`, `=~`, `!~`. */
export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

/** One metric a PromQL expression reads, with the label names its matchers use. */
export interface Selector {
  /** Undefined when the selector names no metric (`{job="x"}`), which no rule here should do. */
  metric: string | undefined;
  labels: string[];
  matchers: Matcher[];
}

const MATCH_OPS = { EqlSingle: '=', Neq: '!=', EqlRegex: '=~', NeqRegex: '!~' } as const;

/** What Prometheus' own grammar makes of an expression. */
export interface ParsedExpression {
  /** Offsets of the grammar's error nodes (⚠); empty when the expression parses. */
  errors: number[];
  selectors: Selector[];
}

/** An expression and where it was found, so a failure names the rule or the panel. */
export interface LocatedExpression {
  where: string;
  expr: string;
}

/** A family's name and type as an exporter declares it (`# TYPE`). */
export interface MetricFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
}

/**
 * Series Prometheus writes itself for every target, whatever the target exports: a rule on `up`
 * watches the scrape, not a process's metric.
 */
export const SCRAPE_SERIES = [
  'up',
  'scrape_duration_seconds',
  'scrape_samples_scraped',
  'scrape_samples_post_metric_relabeling',
  'scrape_series_added',
] as const;

function unquote(literal: string): string {
  // PromQL's double-quoted strings are JSON's; single and back quotes carry no escapes we write.
  if (literal.startsWith('"')) return JSON.parse(literal) as string;
  return literal.slice(1, -1);
}

function selectorOf(node: SyntaxNode, text: (n: SyntaxNode) => string): Selector {
  const identifier = node.getChild('Identifier');
  let metric = identifier === null ? undefined : text(identifier);
  const matchers: Matcher[] = [];
  for (const matcher of node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
    const name = matcher.getChild('LabelName');
    const value = matcher.getChild('StringLiteral');
    const opName = matcher.getChild('MatchOp')?.firstChild?.name;
    if (name === null || value === null || opName === undefined || !(opName in MATCH_OPS)) continue;
    const op = MATCH_OPS[opName as keyof typeof MATCH_OPS];
    if (text(name) === '__name__' && op === '=') metric = unquote(text(value));
    else matchers.push({ label: text(name), op, value: unquote(text(value)) });
  }
  return { metric, labels: matchers.map((m) => m.label), matchers };
}

/** Parses with `@prometheus-io/lezer-promql`, the grammar Prometheus' own UI uses. */
export function parsePromQL(expr: string): ParsedExpression {
  const text = (n: SyntaxNode) => expr.slice(n.from, n.to);
  const errors: number[] = [];
  const selectors: Selector[] = [];
  parser.parse(expr).iterate({
    enter: (ref) => {
      if (ref.type.isError) errors.push(ref.from);
      if (ref.name === 'VectorSelector') selectors.push(selectorOf(ref.node, text));
    },
  });
  return { errors, selectors };
}

/** The sample names a family's exposition carries: a histogram is read as its three series. */
export function sampleNames(families: readonly MetricFamily[]): string[] {
  return families.flatMap(({ name, type }) => {
    switch (type) {
      case 'histogram':
        return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
      case 'summary':
        return [name, `${name}_sum`, `${name}_count`];
      case 'counter':
      case 'gauge':
        return [name];
    }
  });
}

/** Sample names in a Prometheus text exposition, as a process's `GET /metrics` answers it. */
export function sampleNamesInExposition(text: string): string[] {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const name = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line)?.[1];
    if (name !== undefined) names.add(name);
  }
  return [...names];
}

/**
 * Every metric an expression reads that is neither in `exported` (sample names, as `sampleNames`
 * or `sampleNamesInExposition` give them) nor written by Prometheus' scrape: an alert on such a
 * name never fires, a panel on it stays empty.
 */
export function unexportedMetrics(
  expressions: readonly LocatedExpression[],
  exported: readonly string[],
): { where: string; metric: string }[] {
  const known = new Set<string>([...exported, ...SCRAPE_SERIES]);
  return expressions.flatMap(({ where, expr }) =>
    parsePromQL(expr)
      .selectors.map((s) => s.metric ?? '(a selector without a metric name)')
      .filter((metric) => !known.has(metric))
      .map((metric) => ({ where, metric })),
  );
}
