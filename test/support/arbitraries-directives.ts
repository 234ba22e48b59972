import fc from 'fast-check';
import { DEMO_TEMPLATES } from '../../src/app/index.ts';
import type { FieldSpec } from '../../src/app/index.ts';
import { isSafeDataKey } from '../../src/ui-ir/index.ts';
import { jsLiteral, pythonRepr } from './model-dialects.ts';

/**
 * Arbitraries for the demo app's directives, shared by every suite that needs model output:
 * canonical envelopes (`validDirectiveEnvelope`) and non-canonical renderings of them
 * (`nonCanonicalVariant`) that strict mode must refuse and best-effort must read.
 */

export type Directive = { type: string; payload: Record<string, unknown> };
export type Envelope = { directives: Directive[]; assistant_text?: string };

export const SURFACES = ['main', 'sidebar', 'wizard-a'] as const;
export const surfaceId = (): fc.Arbitrary<string> => fc.constantFrom(...SURFACES);

/** Non-empty text of unicode graphemes (quotes, braces, emoji…), up to `max` code units. */
export const text = (max: number): fc.Arbitrary<string> =>
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.max(1, Math.floor(max / 4)) }).filter((s) => s.length <= max);

export const dataKey = (): fc.Arbitrary<string> =>
  fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/).filter(isSafeDataKey);

const isoDate = fc.date({ min: new Date(Date.UTC(1900, 0, 1)), max: new Date(Date.UTC(2199, 11, 31)), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

/** A value a model may pre-fill for one template field (the field's draft type). */
export function fieldValue(field: FieldSpec): fc.Arbitrary<string | number | boolean> {
  switch (field.control) {
    case 'checkbox': return fc.boolean();
    case 'slider': case 'number': return fc.integer({ min: field.min ?? 0, max: field.max ?? 100 });
    case 'select': return fc.constantFrom(...(field.options ?? []).map((o) => o.value));
    case 'url': return fc.constantFrom('https://example.com/aria.png', 'http://img.example.org/a/b.jpg');
    case 'date': return isoDate;
    case 'tags': return fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { maxLength: 4 }).map((t) => t.join(', '));
    default: return fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => s.length <= (field.maxLength ?? 4000));
  }
}

export const showFormPayload = (): fc.Arbitrary<Record<string, unknown>> =>
  fc.constantFrom(...DEMO_TEMPLATES).chain((t) => fc.record({
    template: fc.constant(t.name),
    surface: surfaceId(),
    title: text(60),
    values: fc.record(Object.fromEntries(t.fields.map((f) => [f.name, fieldValue(f)])), { requiredKeys: [] }),
  }, { requiredKeys: ['template'] }));

const askField = (name: string) => fc.oneof(
  fc.record({ name: fc.constant(name), label: text(40), type: fc.constantFrom('text', 'textarea', 'checkbox', 'number', 'tags'), required: fc.boolean() },
    { requiredKeys: ['name', 'label', 'type'] }),
  fc.record({ name: fc.constant(name), label: text(40), type: fc.constant('select'), options: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z ]{0,10}$/), { minLength: 1, maxLength: 4 }) }),
);

export const askPayload = (): fc.Arbitrary<Record<string, unknown>> =>
  fc.uniqueArray(dataKey(), { minLength: 1, maxLength: 4 }).chain((names) => fc.record({
    title: text(60),
    prompt: text(200),
    fields: fc.tuple(...names.map(askField)),
    submit: text(20),
    cancel: text(20),
    surface: surfaceId(),
  }, { requiredKeys: ['title', 'prompt', 'fields', 'submit'] }));

export const toastPayload = (): fc.Arbitrary<Record<string, unknown>> => fc.record({
  level: fc.constantFrom('info', 'success', 'warning', 'error'),
  text: text(120),
  surface: surfaceId(),
}, { requiredKeys: ['level', 'text'] });

const scalar = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean());
const uiValue = fc.oneof(scalar, fc.dictionary(dataKey(), scalar, { maxKeys: 3 }));
const allFields = DEMO_TEMPLATES.flatMap((t) => t.fields);

const patchOp = fc.oneof(
  fc.record({ op: fc.constantFrom('add', 'replace'), path: dataKey().map((k) => `/ui/${k}`), value: uiValue }),
  fc.record({ op: fc.constant('remove'), path: dataKey().map((k) => `/ui/${k}`) }),
  fc.constantFrom(...allFields).chain((f) => fieldValue(f).map((value) => ({ op: 'replace', path: `/draft/${f.name}`, value }))),
);

export const patchPayload = (): fc.Arbitrary<Record<string, unknown>> =>
  fc.record({ surface: surfaceId(), ops: fc.array(patchOp, { minLength: 1, maxLength: 4 }) }, { requiredKeys: ['ops'] });

export const requestUploadPayload = (): fc.Arbitrary<Record<string, unknown>> => fc.record({
  accept: fc.uniqueArray(fc.constantFrom('image/png', 'image/*', '.jpg', '.webp', 'application/pdf'), { minLength: 1, maxLength: 3 }),
  purpose: text(100),
  label: text(40),
  surface: surfaceId(),
}, { requiredKeys: ['accept', 'purpose'] });

export const closePayload = (): fc.Arbitrary<Record<string, unknown>> => fc.record({ surface: surfaceId() });

/** List directives: small pools of list names and ids, so adds, updates and removals find their items. */
const LISTS = ['items', 'picks'] as const;
const IDS = ['a', 'b', 'c', 'd', 'e'] as const;
const itemField = fc.constantFrom('name', 'note', 'img', 'n');
const listItem = (id: string): fc.Arbitrary<Record<string, unknown>> =>
  fc.dictionary(itemField, fc.oneof(text(40), fc.integer(), fc.boolean(), fc.constant('https://example.com/p.png')), { maxKeys: 3 })
    .map((fields) => ({ ...fields, id }));
const listItems = (min: number): fc.Arbitrary<Record<string, unknown>[]> =>
  fc.uniqueArray(fc.constantFrom(...IDS), { minLength: min, maxLength: 4 }).chain((ids) => fc.tuple(...ids.map(listItem)));

export const showListPayload = (): fc.Arbitrary<Record<string, unknown>> => fc.record({
  surface: surfaceId(),
  list: fc.constantFrom(...LISTS),
  title: text(60),
  intro: text(100),
  fields: fc.array(fc.record({ name: itemField, show: fc.constantFrom('title', 'text', 'caption', 'value', 'image', 'badge'), label: text(20) },
    { requiredKeys: ['name'] }), { minLength: 1, maxLength: 3 }),
  actions: fc.uniqueArray(fc.record({ name: fc.constantFrom('list.choose', 'list.remove', 'character.use'), label: text(20), primary: fc.boolean() },
    { requiredKeys: ['name', 'label'] }), { maxLength: 3, selector: (a) => a.name }),
  items: listItems(0),
  empty: text(60),
  max_shown: fc.integer({ min: 1, max: 5 }),
}, { requiredKeys: ['title', 'fields', 'items'] });

export const listAddPayload = (): fc.Arbitrary<Record<string, unknown>> =>
  fc.record({ surface: surfaceId(), list: fc.constantFrom(...LISTS), items: listItems(1), at: fc.constantFrom('end', 'start') }, { requiredKeys: ['items'] });

export const listUpdatePayload = (): fc.Arbitrary<Record<string, unknown>> =>
  fc.record({ surface: surfaceId(), list: fc.constantFrom(...LISTS), items: listItems(1) }, { requiredKeys: ['items'] });

export const listRemovePayload = (): fc.Arbitrary<Record<string, unknown>> =>
  fc.record({ surface: surfaceId(), list: fc.constantFrom(...LISTS), ids: fc.uniqueArray(fc.constantFrom(...IDS), { minLength: 1, maxLength: 2 }) }, { requiredKeys: ['ids'] });

const BY_TYPE = {
  'ui.show_form': showFormPayload, 'ui.ask': askPayload, 'ui.toast': toastPayload,
  'ui.patch': patchPayload, 'ui.request_upload': requestUploadPayload, 'ui.close': closePayload,
  'ui.show_list': showListPayload, 'ui.list_add': listAddPayload, 'ui.list_update': listUpdatePayload, 'ui.list_remove': listRemovePayload,
} as const;

/** One canonical directive of the demo app (valid on its own; it may still not apply to a state). */
export const validDirective = (): fc.Arbitrary<Directive> =>
  fc.oneof(...Object.entries(BY_TYPE).map(([type, payload]) => payload().map((p) => ({ type, payload: p }))));

export const validDirectiveEnvelope = (options: { maxDirectives?: number } = {}): fc.Arbitrary<Envelope> => fc.record({
  directives: fc.array(validDirective(), { maxLength: options.maxDirectives ?? 5 }),
  assistant_text: text(200),
}, { requiredKeys: ['directives'] });

/** Prose around JSON: any text with something visible in it (an empty wrapper is canonical). */
export const prose = (): fc.Arbitrary<string> =>
  fc.string({ unit: 'grapheme', maxLength: 40 }).filter((s) => s.trim() !== '' && !/[{[]/.test(s));

/** Text-level wrappings that keep the directives the same. */
export const wrapping = (): fc.Arbitrary<{ kind: string; wrap: (json: string) => string }> => fc.oneof(
  fc.constant({ kind: 'bom', wrap: (j: string) => `\uFEFF${j}` }),
  fc.constantFrom('json', 'JSON', '').map((lang) => ({ kind: 'fence', wrap: (j: string) => `\`\`\`${lang}\n${j}\n\`\`\`` })),
  fc.tuple(prose(), prose()).map(([a, b]) => ({ kind: 'prose', wrap: (j: string) => `${a}\n${j}\n${b}` })),
  fc.tuple(prose(), fc.constantFrom('json', '')).map(([a, lang]) => ({ kind: 'prose+fence', wrap: (j: string) => `${a}\n\`\`\`${lang}\n${j}\n\`\`\`\n` })),
  fc.constant({ kind: 'trailing_comma', wrap: (j: string) => `${j.slice(0, -1)},}` }),
  fc.constant({ kind: 'smart_quotes', wrap: (j: string) => j.replace(/(?<!\\)"([a-z_]+)":/g, '\u201C$1\u201D:') }),
);

type Variant = { kind: string; text: string };

function camel(key: string): string {
  return key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * A non-canonical rendering of a canonical envelope: text repairs, aliases, flat payloads,
 * camelCase keys, segment paths, op aliases, coercions, template aliases, unknown keys.
 * Strict mode must refuse every one; best-effort reads each.
 */
export const nonCanonicalVariant = (): fc.Arbitrary<Variant & { envelope: Envelope }> =>
  validDirectiveEnvelope().chain((envelope) => {
    const json = JSON.stringify(envelope);
    const withExtra = (d: Directive): string => JSON.stringify({ ...envelope, directives: [...envelope.directives, d] });
    const variants: Array<fc.Arbitrary<Variant>> = [
      wrapping().map((w) => ({ kind: w.kind, text: w.wrap(json) })),
      fc.constant({ kind: 'bare_array', text: JSON.stringify(envelope.directives) }),
      fc.constantFrom('show_form', 'ui.showForm', 'UI.SHOW_FORM').map((alias) => ({
        kind: 'type_alias', text: withExtra({ type: alias, payload: { template: 'persona' } }),
      })),
      fc.constant({ kind: 'flat_payload', text: JSON.stringify({ directives: [{ type: 'ui.toast', level: 'info', text: 'hi' }] }) }),
      fc.constant({ kind: 'camel_envelope_key', text: JSON.stringify({ assistantText: 'hello', directives: envelope.directives }) }),
      fc.constantFrom('display_name', 'speaking_style').map((k) => ({
        kind: 'camel_payload_key', text: withExtra({ type: 'ui.show_form', payload: { template: 'persona', values: { [camel(k)]: k === 'display_name' ? 'Sam' : 'formal' } } }),
      })),
      fc.constantFrom('tagline', 'draft/tagline', 'draft.tagline').map((path) => ({
        kind: 'segment_path', text: withExtra({ type: 'ui.patch', payload: { ops: [{ op: 'replace', path, value: 'x' }] } }),
      })),
      fc.constantFrom('set', 'update', 'Replace', 'delete').map((op) => ({
        kind: 'op_alias', text: withExtra({ type: 'ui.patch', payload: { ops: [{ op, path: '/ui/status', ...(op === 'delete' ? {} : { value: 'x' }) }] } }),
      })),
      fc.constant({ kind: 'coerced_number', text: withExtra({ type: 'ui.show_form', payload: { template: 'scene_settings', values: { tone: '7' } } }) }),
      fc.constantFrom('Info', 'SUCCESS').map((level) => ({ kind: 'enum_case', text: withExtra({ type: 'ui.toast', payload: { level, text: 'hi' } }) })),
      fc.constantFrom('character', 'Character Card').map((template) => ({ kind: 'template_alias', text: withExtra({ type: 'ui.show_form', payload: { template } }) })),
      fc.constant({ kind: 'unknown_envelope_key', text: JSON.stringify({ ...envelope, thoughts: 'hmm' }) }),
    ];
    return fc.oneof(...variants).map((v) => ({ ...v, envelope }));
  });

/**
 * The drifts of issue 12 applied to one canonical envelope: reasoning blocks (with braces in
 * them), tool-call syntaxes, Python and JavaScript literals, JSON encoded twice, key synonyms.
 * `noise` becomes the reasoning text.
 */
export function driftVariant(envelope: Envelope, noise: string): Variant[] {
  const json = JSON.stringify(envelope);
  const thought = `${noise.replace(/think|\[\/?THINK\]/gi, '')} {"type": "ui.toast"} [1]`;
  const call = (d: Directive) => ({ name: d.type, arguments: d.payload });
  const variants: Variant[] = [
    { kind: 'think', text: `<think>\n${thought}\n</think>\n\n${json}` },
    { kind: 'r1_think', text: `${thought}\n</think>\n\n\`\`\`json\n${json}\n\`\`\`` },
    { kind: 'python', text: pythonRepr(envelope) },
    { kind: 'javascript', text: `${jsLiteral(envelope)} // the envelope` },
    { kind: 'json_string', text: JSON.stringify(json) },
    {
      kind: 'openai_tool_calls',
      text: JSON.stringify({ tool_calls: envelope.directives.map((d, i) => ({ id: `call_${i}`, type: 'function', function: { name: d.type, arguments: JSON.stringify(d.payload) } })) }),
    },
  ];
  if (envelope.directives.length > 0) {
    variants.push(
      { kind: 'synonyms', text: JSON.stringify({ directives: envelope.directives.map((d) => ({ action: d.type, params: d.payload })) }) },
      { kind: 'hermes_tool_call', text: envelope.directives.map((d) => `<tool_call>\n${JSON.stringify(call(d))}\n</tool_call>`).join('\n') },
      { kind: 'mistral_tool_calls', text: `[TOOL_CALLS] ${JSON.stringify(envelope.directives.map(call))}` },
    );
  }
  return variants;
}

/** Freezes a value and everything reachable from it, so any mutation throws in strict-mode ESM. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
