/*
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests of GET /metrics.
 *
 * Why not an npm parser: `parse-prometheus-text-format` (the one in wide use) was tried and
 * silently merged the label sets of a histogram and dropped its _count and _sum when they come
 * before the buckets, as OpenTelemetry's serializer writes them; a test reading it would have
 * compared the wrong numbers. This one throws on anything it does not understand instead.
 *
 * Checked: metric and label names, label value escapes, float values (NaN, ±Inf), `# HELP` and
 * `# TYPE` at most once per family and before its samples, a family's samples together, no
 * duplicate series, and for histograms: `le` buckets ascending, cumulative, ending in +Inf
 * equal to _count, with a _sum. Other `#` lines are comments (the OTel exporter writes
 * `# UNIT`, which 0.0.4 does not define).
 */

export type Labels = Record<string, string>;
export interface Sample { name: string; labels: Labels; value: number }
export type FamilyType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
export interface Family { name: string; type: FamilyType; help?: string; samples: Sample[] }

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<FamilyType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export class PrometheusParseError extends Error {
  constructor(line: number, detail: string) {
    super(`line ${line}: ${detail}`);
  }
}

function parseValue(text: string, line: number): number {
  if (text === 'NaN') return Number.NaN;
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new PrometheusParseError(line, `not a number: ${JSON.stringify(text)}`);
  return Number(text);
}

/** `{a="x",b="y"}` from position `at`; returns the labels and the position after `}`. */
function parseLabels(text: string, at: number, line: number): { labels: Labels; end: number } {
  const labels: Labels = {};
  let i = at + 1;
  for (;;) {
    if (text[i] === '}') return { labels, end: i + 1 };
    const nameMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i));
    if (!nameMatch) throw new PrometheusParseError(line, `bad label name at ${i}`);
    const name = nameMatch[0];
    i += name.length;
    if (text[i] !== '=' || text[i + 1] !== '"') throw new PrometheusParseError(line, `expected =" after label ${name}`);
    i += 2;
    let value = '';
    for (;;) {
      const ch = text[i];
      if (ch === undefined || ch === '\n') throw new PrometheusParseError(line, `unterminated value of label ${name}`);
      if (ch === '"') break;
      if (ch === '\\') {
        const next = text[i + 1];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else throw new PrometheusParseError(line, `bad escape \\${next ?? ''} in label ${name}`);
        i += 2;
        continue;
      }
      value += ch;
      i += 1;
    }
    i += 1;
    if (!LABEL_NAME.test(name)) throw new PrometheusParseError(line, `bad label name ${name}`);
    if (name in labels) throw new PrometheusParseError(line, `label ${name} twice`);
    labels[name] = value;
    if (text[i] === ',') i += 1;
    else if (text[i] !== '}') throw new PrometheusParseError(line, `expected , or } after label ${name}`);
  }
}

/** The family a sample belongs to: histogram samples carry _bucket/_sum/_count after the family's name. */
function familyOf(sample: string, families: Map<string, Family>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (sample.endsWith(suffix)) {
      const base = sample.slice(0, -suffix.length);
      const type = families.get(base)?.type;
      if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
    }
  }
  return sample;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seenSeries = new Set<string>();
  const closed = new Set<string>();
  let current: string | undefined;
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new PrometheusParseError(lines.length, 'the text must end with a newline');
  const family = (name: string, line: number): Family => {
    if (!METRIC_NAME.test(name)) throw new PrometheusParseError(line, `bad metric name ${name}`);
    let f = families.get(name);
    if (f === undefined) {
      f = { name, type: 'untyped', samples: [] };
      families.set(name, f);
    }
    return f;
  };
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(raw);
      if (!m) return; // a comment
      const [, keyword, name, rest = ''] = m as unknown as [string, string, string, string | undefined];
      const f = family(name, line);
      if (f.samples.length > 0) throw new PrometheusParseError(line, `${keyword} of ${name} after its samples`);
      if (keyword === 'TYPE') {
        if (!TYPES.has(rest as FamilyType)) throw new PrometheusParseError(line, `unknown type ${rest}`);
        if (f.type !== 'untyped') throw new PrometheusParseError(line, `second TYPE for ${name}`);
        f.type = rest as FamilyType;
      } else {
        if (f.help !== undefined) throw new PrometheusParseError(line, `second HELP for ${name}`);
        f.help = rest;
      }
      return;
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(raw);
    if (!nameMatch) throw new PrometheusParseError(line, `bad sample line ${JSON.stringify(raw.slice(0, 80))}`);
    const name = nameMatch[0];
    let at = name.length;
    let labels: Labels = {};
    if (raw[at] === '{') ({ labels, end: at } = parseLabels(raw, at, line));
    const tail = raw.slice(at);
    const fields = /^[ \t]+(\S+)(?:[ \t]+(-?\d+))?[ \t]*$/.exec(tail);
    if (!fields) throw new PrometheusParseError(line, `bad value in ${JSON.stringify(raw.slice(0, 80))}`);
    const value = parseValue(fields[1]!, line);
    const owner = familyOf(name, families);
    const f = family(owner, line);
    if (current !== owner) {
      if (closed.has(owner)) throw new PrometheusParseError(line, `samples of ${owner} are not together`);
      if (current !== undefined) closed.add(current);
      current = owner;
    }
    const key = `${name}${JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)))}`;
    if (seenSeries.has(key)) throw new PrometheusParseError(line, `duplicate series ${key}`);
    seenSeries.add(key);
    if (f.type === 'counter' && !(value >= 0)) throw new PrometheusParseError(line, `counter ${name} is ${value}`);
    f.samples.push({ name, labels, value });
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function checkHistogram(f: Family): void {
  const series = new Map<string, { buckets: Array<{ le: number; value: number }>; sum?: number; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new Error(`${f.name}: bucket without le`);
      entry.buckets.push({ le: parseValue(le, 0), value: s.value });
    } else if (s.name === `${f.name}_sum`) entry.sum = s.value;
    else if (s.name === `${f.name}_count`) entry.count = s.value;
    else throw new Error(`${f.name}: unexpected sample ${s.name}`);
  }
  for (const [key, entry] of series) {
    const where = `${f.name}${key}`;
    if (entry.sum === undefined || entry.count === undefined) throw new Error(`${where}: _sum and _count required`);
    const { buckets } = entry;
    if (buckets.length === 0 || buckets.at(-1)!.le !== Number.POSITIVE_INFINITY) throw new Error(`${where}: last bucket must be +Inf`);
    for (let i = 1; i < buckets.length; i += 1) {
      if (!(buckets[i]!.le > buckets[i - 1]!.le)) throw new Error(`${where}: buckets not ascending`);
      if (buckets[i]!.value < buckets[i - 1]!.value) throw new Error(`${where}: buckets not cumulative`);
    }
    if (buckets.at(-1)!.value !== entry.count) throw new Error(`${where}: +Inf bucket ${buckets.at(-1)!.value} != _count ${entry.count}`);
  }
}

/** The value of the one sample of `name` whose labels include `labels` (throws when none or several). */
export function sampleValue(families: Map<string, Family>, name: string, labels: Labels = {}): number {
  const matches = [...families.values()].flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matches.length !== 1) throw new Error(`${matches.length} samples of ${name} with ${JSON.stringify(labels)}`);
  return matches[0]!.value;
}

/** Sum of every sample of `name` whose labels include `labels` (0 when none). */
export function sampleSum(families: Map<string, Family>, name: string, labels: Labels = {}): number {
  return [...families.values()].flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}
