import { z } from 'zod';
import { compileConversationToA2ui, compileConversationToA2uiV09 } from '../src/compiler/index.ts';
import { compileConversationToHtml } from '../src/compiler/html/index.ts';
import {
  ActionSpec, AudioBlock, type Block, BlockSchema, ComponentBlock, createSeededSource, DataMapSchema, DataValueSchema, DividerBlock, draw,
  emptyConversation, FieldBlock, FieldControl, FieldOption, GroupBlock, HeadingBlock, IconBlock, ImageBlock, ListBlock,
  ListItemAction, ListItemDisplay, ModalBlock, openSurface, SurfaceView, TableBlock, TableColumn, TabsBlock, TextBlock, UploadBlock, ValueBlock, VideoBlock,
} from '../src/ui-ir/index.ts';

/**
 * docs/ir-reference.md, generated: every block of a view and every field control, with their
 * properties read from the zod schemas that check them (z.toJSONSchema), and what each control
 * becomes on every target found by compiling a one-field surface. test/directives/docs.test.ts
 * holds the page to this output (UPDATE_DOCS=1 rewrites it); `npx tsx scripts/ir-reference.ts`
 * prints it. Only the one-line descriptions are written by hand, and TypeScript makes them
 * cover every kind.
 */
type Json = Record<string, unknown>;
type Kind = Block['kind'];

const BLOCKS: Record<Kind, { schema: z.ZodType; about: string }> = {
  field: { schema: FieldBlock, about: 'An input bound to `/draft/<name>`; its control is one of the [field controls](#field-controls). A view with fields is a form: its `submit` button sends their values.' },
  heading: { schema: HeadingBlock, about: 'A heading of `level` 1 to 4.' },
  text: { schema: TextBlock, about: 'A paragraph (`body`) or small print (`caption`); markdown in it is shown as text.' },
  divider: { schema: DividerBlock, about: 'A horizontal rule.' },
  image: { schema: ImageBlock, about: 'An http(s) image; other schemes never reach the IR.' },
  value: { schema: ValueBlock, about: 'A committed (or `/ui`) value shown read-only under `label`, e.g. the saved name.' },
  upload: { schema: UploadBlock, about: 'A file request. Clients without a file control show `fallback` instead.' },
  list: { schema: ListBlock, about: 'A collection: the items of the array at `path`, each an object whose `itemKey` field holds its stable key. Each item shows its `display` parts; each of its `actions` is a button on every item that sends `{list: name, item: key}`. At most `maxItems` are shown, and `empty` when there is none.' },
  table: { schema: TableBlock, about: 'Tabular data: the rows of the array at `path` (a list\'s item rules), one cell per `columns` entry, formatted by its `type` on the server with the column\'s `locale` and `currency` (no machine locale or time zone). Sorted and paged on the server: a client receives the shown page only, and the built-in `table.sort` / `table.page` actions change the sort and page (kept under `/ui/table_state/<name>`) with a new rev. `sort` is the order before anyone sorts; each of `actions` is a button on every row that sends `{list: name, item: key}`.' },
  icon: { schema: IconBlock, about: 'An icon of the names both A2UI versions know, with `label` beside it (its accessible name).' },
  video: { schema: VideoBlock, about: 'An http(s) video player with `caption` under it.' },
  audio: { schema: AudioBlock, about: 'An http(s) audio player; `description` says what it plays.' },
  component: { schema: ComponentBlock, about: 'One of the app\'s own components (`defineComponent`), by name: `props` are checked against its zod schema, `bind` maps a property to data it reads (never also in `props`), and with `path` it shows a collection like a list. Clients without the app\'s catalogue get its fallback. See [Your own components](components.md).' },
  group: { schema: GroupBlock, about: 'Blocks in a `row` or a `column`, under an optional title.' },
  tabs: { schema: TabsBlock, about: 'Tabs, one shown at a time: each member is a `group` whose `title` (required here) is the tab\'s title.' },
  modal: { schema: ModalBlock, about: 'A button labelled `label` that opens a dialog holding `blocks`; its fields belong to the surface\'s form like any other.' },
};

/** The shapes blocks are made of, named once so a property's type can point at them. */
const PARTS: Array<{ id: string; title: string; schema: z.ZodType; about: string }> = [
  { id: 'view', title: 'View', schema: SurfaceView, about: 'What a surface shows: `openSurface(ir, { id, view, draft?, ui? }, draw)` takes it. List and component names are unique in a view, and an item action is never also a view action.' },
  { id: 'button', title: 'Button', schema: ActionSpec, about: 'A button under the view; `name` must be an action of the app\'s registry (the allowlist). `submit` sends the form\'s values.' },
  { id: 'field-option', title: 'Field option', schema: FieldOption, about: 'One choice of a `select` or `multiselect` field.' },
  { id: 'list-display', title: 'List display', schema: ListItemDisplay, about: 'One thing each item of a list shows, read from the item\'s `field`.' },
  { id: 'item-action', title: 'Item action', schema: ListItemAction, about: 'A button on every item of a list, table or component; its action receives the list\'s name and the item\'s key.' },
  { id: 'table-column', title: 'Table column', schema: TableColumn, about: 'One column of a table: the row field `key` it shows under `label`, how (`type`), and whether the user may sort by it.' },
];

const registry = z.registry<{ id: string }>();
registry.add(BlockSchema, { id: 'block' });
registry.add(DataValueSchema, { id: 'data-value' });
registry.add(DataMapSchema, { id: 'data-map' });
for (const part of PARTS.slice(1)) registry.add(part.schema, { id: part.id });

const REF_NAMES: Record<string, string> = {
  block: '[block](#blocks)',
  'data-value': 'data value (text, finite number, boolean, list or map; no null)',
  'data-map': 'map of data key (`^[A-Za-z0-9_-]{1,64}$`) to data value (text, finite number, boolean, list or map; no null), at most 8 deep',
};
for (const part of PARTS) REF_NAMES[part.id] = `[${part.title.toLowerCase()}](#${part.id})`;

/** The schema's JSON Schema; a registered part comes back as a reference to itself, so it is resolved. */
function jsonSchema(schema: z.ZodType): Json {
  const out = z.toJSONSchema(schema, { io: 'input', metadata: registry, unrepresentable: 'any', reused: 'inline' }) as Json;
  const id = registry.get(schema)?.id;
  const defs = isJson(out.$defs) ? out.$defs : {};
  return id !== undefined && isJson(defs[id]) ? { ...defs[id], $defs: defs } : out;
}

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const code = (v: unknown): string => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;

function range(min: unknown, max: unknown, unit: string): string {
  if (typeof min === 'number' && typeof max === 'number') return min === max ? `${min} ${unit}` : `${min}–${max} ${unit}`;
  if (typeof max === 'number') return `at most ${max} ${unit}`;
  if (typeof min === 'number') return `at least ${min} ${unit}`;
  return '';
}

/** A property's type in a few words: its JSON Schema read back, constraints included. */
function typeOf(node: unknown, self?: string): string {
  if (!isJson(node)) return 'any value';
  if (typeof node.$ref === 'string') {
    const id = node.$ref.replace(/^#\/\$defs\//, '');
    return REF_NAMES[id] ?? (node.$ref === '#' && self !== undefined ? REF_NAMES[self] ?? 'the same shape' : 'a value');
  }
  if (Object.hasOwn(node, 'const')) return code(node.const);
  if (Array.isArray(node.enum)) return `one of ${node.enum.map(code).join(', ')}`;
  const alternatives = node.anyOf ?? node.oneOf;
  if (Array.isArray(alternatives)) return [...new Set(alternatives.map((a) => typeOf(a, self)))].join(' or ');
  const notes = (...parts: string[]): string => parts.filter((p) => p !== '').join(', ');
  switch (node.type) {
    case 'string': {
      const length = range(node.minLength, node.maxLength, 'characters');
      return notes(typeof node.pattern === 'string' ? `text matching ${code(node.pattern)}` : 'text', length);
    }
    case 'integer': case 'number': {
      const low = typeof node.exclusiveMinimum === 'number' ? `> ${node.exclusiveMinimum}` : '';
      const bounds = range(node.minimum, node.maximum, '').trim();
      return notes(node.type === 'integer' ? 'integer' : 'number', low, bounds);
    }
    case 'boolean': return 'boolean';
    case 'array': return notes(`list of ${typeOf(node.items, self)}`, range(node.minItems, node.maxItems, 'items'));
    case 'object': {
      if (isJson(node.additionalProperties)) {
        return `map of data key (${code((node.propertyNames as Json | undefined)?.pattern ?? '')}) to ${typeOf(node.additionalProperties, self)}`;
      }
      const kind = isJson(node.properties) && isJson(node.properties.kind) ? node.properties.kind.const : undefined;
      if (typeof kind === 'string') return `a \`${kind}\` block with ${Object.keys(node.properties as Json).filter((k) => k !== 'kind').map(code).join(', ')}`;
      if (isJson(node.properties)) return `object {${Object.keys(node.properties).join(', ')}}`;
      return 'object';
    }
    default: return 'any value';
  }
}

function propertyTable(schema: Json, self?: string): string[] {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const rows = Object.entries(isJson(schema.properties) ? schema.properties : {}).map(([name, prop]) => {
    const fallback = isJson(prop) && Object.hasOwn(prop, 'default') ? `\`${JSON.stringify(prop.default)}\`` : '';
    const need = required.has(name) ? 'yes' : 'no';
    return `| \`${name}\` | ${typeOf(prop, self).replace(/\|/g, '\\|')} | ${need} | ${fallback} |`;
  });
  return ['| property | type | required | default |', '|---|---|---|---|', ...rows];
}

/** A discriminated union (a list item's display) gets one table per branch. */
function shapeTables(schema: Json, self?: string): string[] {
  const branches = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(branches)) return propertyTable(schema, self);
  return branches.filter(isJson).flatMap((branch) => {
    const kind = isJson(branch.properties) && isJson(branch.properties.kind) ? branch.properties.kind.const : undefined;
    return [`\`kind: ${JSON.stringify(kind)}\``, '', ...propertyTable(branch, self), ''];
  }).slice(0, -1);
}

// --- field controls: what each becomes, found by compiling a surface holding one field ------

const OPTIONAL_FIELD_PROPERTIES = {
  options: [{ value: 'a', label: 'Option A' }, { value: 'b', label: 'Option B' }],
  placeholder: 'e.g. something', help: 'A hint.', required: true, min: 1, max: 9, step: 2, maxLength: 50,
} as const;

type Target = 'HTML' | 'v0.8' | 'v0.9';
type Rendered = Record<Target, { text: string; shape: string }>;

function render(field: Json): Rendered {
  const view = SurfaceView.parse({ template: 'ref', title: 'Reference', blocks: [{ kind: 'field', name: 'f', label: 'Field', ...field }], actions: [] });
  const ir = openSurface(emptyConversation('ref'), { id: 'main', view }, draw(createSeededSource('ir-reference')));
  const html = compileConversationToHtml(ir).html;
  const v08 = compileConversationToA2ui(ir);
  const v09 = compileConversationToA2uiV09(ir);
  if (!v08.ok || !v09.ok) throw new Error(`a ${String(field.control)} field does not compile`);
  const v08Text = JSON.stringify(v08.batches);
  const v09Text = JSON.stringify(v09.batches);
  return {
    HTML: { text: html, shape: htmlShape(html) },
    'v0.8': { text: v08Text, shape: a2uiShape(v08.batches.flatMap((b) => b.messages), 'v0.8') },
    'v0.9': { text: v09Text, shape: a2uiShape(v09.batches.flatMap((b) => b.messages), 'v0.9') },
  };
}

/** The element that carries the field's name (`f`), as a tag with its type. */
function htmlShape(html: string): string {
  const matches = [...html.matchAll(/<(input|select|textarea)\b([^>]*\bname="f"[^>]*)>/g)];
  const first = matches[0];
  if (first === undefined) return '—';
  const type = /\btype="([^"]+)"/.exec(first[2]!)?.[1];
  const each = matches.length > 1 ? ' per option' : '';
  return `\`<${first[1]}${type === undefined ? '' : ` type="${type}"`}>\`${each}`;
}

/** The component bound to `/draft/f`, with the variant that tells text inputs apart. */
function a2uiShape(messages: readonly unknown[], version: 'v0.8' | 'v0.9'): string {
  const components: Json[] = messages.flatMap((m) => {
    const update = isJson(m) ? (m.surfaceUpdate ?? m.updateComponents) : undefined;
    return isJson(update) && Array.isArray(update.components) ? update.components.filter(isJson) : [];
  });
  for (const c of components) {
    const [type, props] = version === 'v0.8' && isJson(c.component)
      ? Object.entries(c.component)[0] ?? ['', {}]
      : [String(c.component), c];
    if (!isJson(props) || !JSON.stringify(props).includes('"/draft/f"')) continue;
    const variant = props.textFieldType ?? props.variant;
    const extra = type === 'DateTimeInput' ? ` (${['enableDate', 'enableTime'].filter((k) => props[k] === true).map((k) => k.slice(6).toLowerCase()).join(' and ')})` : '';
    return `\`${type}\`${typeof variant === 'string' ? ` \`${variant}\`` : ''}${extra}`;
  }
  return '—';
}

function controlRows(): string[] {
  const rows = FieldControl.options.map((control) => {
    const base = render({ control });
    // The shape with options, so a multiselect has its checkboxes to show.
    const shown = render({ control, options: OPTIONAL_FIELD_PROPERTIES.options });
    const used = Object.entries(OPTIONAL_FIELD_PROPERTIES).flatMap(([name, value]) => {
      const withIt = render({ control, [name]: value });
      const targets = (Object.keys(base) as Target[]).filter((t) => withIt[t].text !== base[t].text);
      if (targets.length === 0) return [];
      return [`\`${name}\`${targets.length === 3 ? '' : ` (${targets.join(', ')})`}`];
    });
    return `| \`${control}\` | ${shown.HTML.shape} | ${shown['v0.8'].shape} | ${shown['v0.9'].shape} | ${used.join(', ') || '—'} |`;
  });
  return ['| control | HTML | A2UI v0.8 | A2UI v0.9 | optional properties it uses |', '|---|---|---|---|---|', ...rows];
}

/** The generated part of docs/ir-reference.md. */
export function renderIrReference(): string {
  const lines: string[] = [];
  const [view, ...parts] = PARTS;
  lines.push(`## ${view!.title}`, '', view!.about, '', ...propertyTable(jsonSchema(view!.schema)), '');
  lines.push('## Blocks', '', `Every block has a \`kind\`: ${(Object.keys(BLOCKS) as Kind[]).map((k) => `[\`${k}\`](#${k})`).join(', ')}.`, '');
  for (const [kind, { schema, about }] of Object.entries(BLOCKS)) {
    lines.push(`### ${kind}`, '', about, '', ...propertyTable(jsonSchema(schema), 'block'), '');
  }
  lines.push('## Field controls', '', 'What a `field` of each `control` becomes on each target, and which of its optional properties change what a target shows (found by compiling a surface holding one such field with and without the property).', '', ...controlRows(), '');
  lines.push('## Parts of blocks', '');
  for (const part of parts) lines.push(`### ${part.title}`, '', part.about, '', ...shapeTables(jsonSchema(part.schema), part.id), '');
  return lines.join('\n').trimEnd();
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(renderIrReference());
