import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingCommand, promtool } from '../support/prometheus-server.ts';
import { skipUnless } from '../support/skip-reason.ts';
import {
  OPERATE_DOC, RULES_DIR, RULES_FILE, RULES_TEST_FILE, alertNames, exportedSeries, promqlReferences, readRules, ruleExpressions, unknownReferences,
} from './alert-rules.ts';

/*
 * The alert rules operators copy: written once (deploy/prometheus/surfacer-alerts.yml), listed
 * by docs/operate.md, reading only series GET /metrics exports, accepted by promtool, and each
 * alert unit-tested both ways by surfacer-alerts.test.yml. A real Prometheus loading them beside
 * a real server: prometheus.test.ts.
 */

const rules = readRules();
const expressions = ruleExpressions(rules);
const alerts = alertNames(rules);

describe('the alert rules file', () => {
  it('holds every alert once, each with its expression', () => {
    expect(alerts.length).toBeGreaterThan(0);
    expect(new Set(alerts).size).toBe(alerts.length);
    expect([...expressions.keys()]).toEqual(alerts);
  });

  it('is what docs/operate.md lists, in its order; the doc writes no rule itself', () => {
    const doc = readFileSync(OPERATE_DOC, 'utf8');
    expect([...doc.matchAll(/^\| `(Surfacer\w+)` \|/gm)].map((m) => m[1])).toEqual(alerts);
    expect(doc).toContain('deploy/prometheus/surfacer-alerts.yml');
    expect(doc).not.toMatch(/^\s*(expr|- alert):/m);
  });

  it('reads only series the server exports, by labels they carry', async () => {
    const exported = await exportedSeries();
    for (const [alert, expr] of expressions) {
      expect(promqlReferences(expr).selectors.length, alert).toBeGreaterThan(0);
      expect(unknownReferences(expr, exported), alert).toEqual([]);
    }
    // The check itself tells a misspelt metric, a label a metric lacks, a grouping nothing carries.
    expect(unknownReferences('sum by (instance) (rate(surfacer_turn_total[5m])) > 0', exported)).toEqual(['no metric surfacer_turn_total']);
    expect(unknownReferences('surfacer_actions_total{surfacer_turn_outcome="applied"}', exported)).toEqual(['surfacer_actions_total has no label surfacer_turn_outcome']);
    expect(unknownReferences('sum by (gen_ai_provider_name) (surfacer_planner_fallback)', exported)).toEqual(['grouped by gen_ai_provider_name, which none of its metrics has']);
  });
});

describe('promtool', skipUnless(missingCommand('promtool')), () => {
  it('checks the rules', () => {
    const run = promtool(['check', 'rules', RULES_FILE]);
    expect(run.output).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(run.status).toBe(0);
  });

  it('passes the unit tests', () => {
    const run = promtool(['test', 'rules', RULES_TEST_FILE], RULES_DIR);
    expect(run.output).toContain('SUCCESS');
    expect(run.status, run.output).toBe(0);
  });

  // The unit tests run against altered rules: no threshold can be crossed (every firing case
  // must fail), then every threshold is crossed at once (every quiet case must fail, so none is
  // quiet merely because its series are missing).
  it('has, for every alert, a case that fires it and one that does not', () => {
    const failedCases = (altered: string): Array<{ alert: string; quiet: boolean }> => {
      const dir = mkdtempSync(join(tmpdir(), 'surfacer-alert-rules-'));
      try {
        writeFileSync(join(dir, 'surfacer-alerts.yml'), altered);
        copyFileSync(RULES_TEST_FILE, join(dir, 'surfacer-alerts.test.yml'));
        const run = promtool(['test', 'rules', 'surfacer-alerts.test.yml'], dir);
        expect(run.status).toBe(1);
        return [...run.output.matchAll(/alertname: (\w+), time: [^,]+,\s*exp:(\[\])?/g)].map((m) => ({ alert: m[1]!, quiet: m[2] !== undefined }));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const thresholds = /(\) >) [0-9.]+$/gm;
    expect(rules.match(thresholds)).toHaveLength(alerts.length);
    const neverFiring = failedCases(rules.replace(thresholds, '$1 1e12'));
    expect(neverFiring.filter((c) => !c.quiet).map((c) => c.alert)).toEqual(alerts);
    const alwaysFiring = failedCases(rules.replace(thresholds, '$1 -1').replace(/^( +)for: \S+$/gm, '$1for: 0s'));
    expect(alwaysFiring.filter((c) => c.quiet).map((c) => c.alert)).toEqual(alerts);
  });
});
