import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { surfacerMetrics, type SurfacerMetrics } from '../../src/telemetry/metrics.ts';
import { createPrometheusEndpoint } from '../../src/telemetry/prometheus.ts';
import { parsePrometheusText } from '../support/prometheus-text.ts';

/*
 * The alert rules operators copy (deploy/prometheus/surfacer-alerts.yml), read as text: the
 * file is ours and kept in one layout, and a real Prometheus reading it is compared with this
 * reading in prometheus.test.ts.
 */

export const RULES_DIR = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url));
export const RULES_FILE = `${RULES_DIR}surfacer-alerts.yml`;
export const RULES_TEST_FILE = `${RULES_DIR}surfacer-alerts.test.yml`;
export const OPERATE_DOC = fileURLToPath(new URL('../../docs/operate.md', import.meta.url));

export const readRules = (): string => readFileSync(RULES_FILE, 'utf8');

/** The alerts' names, in file order. */
export const alertNames = (rules: string): string[] => [...rules.matchAll(/^ *- alert: (\S+)$/gm)].map((m) => m[1]!);

/** Each alert's expression, in file order (a block scalar or one line). */
export function ruleExpressions(rules: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of rules.matchAll(/^( *)- alert: (\S+)\n *expr: (?:\|\n((?:\1 {4,}.*\n)+)|(.*)\n)/gm)) {
    found.set(m[2]!, (m[3] ?? m[4]!).trim());
  }
  return found;
}

/** Labels Prometheus adds to every scraped series. */
const SCRAPE_LABELS = ['instance', 'job'];
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'group_left', 'group_right', 'inf', 'nan']);

/** The series an expression reads (metric name and the labels it matches on) and the labels it groups by. */
export function promqlReferences(expr: string): { selectors: Array<{ metric: string; labels: string[] }>; grouping: string[] } {
  const text = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const groupingClause = /\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g;
  const grouping = [...text.matchAll(groupingClause)].flatMap((m) => m[1]!.split(',').map((l) => l.trim()).filter((l) => l !== ''));
  const rest = text.replace(groupingClause, ' ').replace(/\[[^\]]*\]/g, ' ');
  const selectors: Array<{ metric: string; labels: string[] }> = [];
  for (const m of rest.matchAll(/(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?(\s*\()?/g)) {
    if (m[3] !== undefined || KEYWORDS.has(m[1]!.toLowerCase())) continue; // a function or an operator
    const labels = [...(m[2] ?? '').matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]!);
    selectors.push({ metric: m[1]!, labels });
  }
  return { selectors, grouping };
}

/**
 * Every series name GET /metrics can show, with the labels its samples carry: each recording
 * method called once (with an error type where it takes one) into a real Prometheus endpoint.
 */
export async function exportedSeries(): Promise<Map<string, Set<string>>> {
  const endpoint = createPrometheusEndpoint();
  const provider = new MeterProvider({ readers: [endpoint.reader] });
  const metrics = surfacerMetrics(provider);
  // A mapped type: a recording method added to SurfacerMetrics fails the type check until it is listed here.
  const everyRecord: { [K in keyof SurfacerMetrics]: () => void } = {
    modelCall: () => metrics.modelCall({ provider: 'openai', requestModel: 'm', responseModel: 'm', seconds: 1, errorType: 'LLM_TIMEOUT', inputTokens: 1, outputTokens: 1 }),
    turn: () => metrics.turn({ outcome: 'planner_failed', errorType: 'LLM_TIMEOUT', repairs: 1, repairsExhausted: true, seconds: 1 }),
    action: () => metrics.action('rejected', 'A2UI_C2S_SURFACE_STALE'),
    streamOpened: () => metrics.streamOpened('a2ui', '0.9'),
    streamCut: () => metrics.streamCut('a2ui', 'slow', '0.9'),
    fanout: () => metrics.fanout(0.01, '0.9'),
    redisCommand: () => metrics.redisCommand(0.01, 'timeout'),
    logAppend: () => metrics.logAppend('failed', 'turn'),
    redisUnreplicated: () => metrics.redisUnreplicated(),
    plannerFallback: () => metrics.plannerFallback(true),
  };
  for (const record of Object.values(everyRecord)) record();
  const families = parsePrometheusText(await endpoint.collect());
  await provider.shutdown();
  const series = new Map<string, Set<string>>();
  for (const sample of [...families.values()].flatMap((f) => f.samples)) {
    const labels = series.get(sample.name) ?? new Set(SCRAPE_LABELS);
    for (const label of Object.keys(sample.labels)) labels.add(label);
    series.set(sample.name, labels);
  }
  return series;
}

/** What in `expr` no exported series has: an unknown metric, a label it lacks, a grouping label none of its metrics carry. */
export function unknownReferences(expr: string, exported: Map<string, Set<string>>): string[] {
  const { selectors, grouping } = promqlReferences(expr);
  const problems: string[] = [];
  const known = new Set<string>(SCRAPE_LABELS);
  for (const { metric, labels } of selectors) {
    const has = exported.get(metric);
    if (has === undefined) {
      problems.push(`no metric ${metric}`);
      continue;
    }
    for (const label of has) known.add(label);
    for (const label of labels) if (!has.has(label)) problems.push(`${metric} has no label ${label}`);
  }
  for (const label of grouping) if (!known.has(label)) problems.push(`grouped by ${label}, which none of its metrics has`);
  return problems;
}
