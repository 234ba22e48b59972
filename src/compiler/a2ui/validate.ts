import { makeError, type ErrorCode } from '../../errors/index.ts';
import { formatPointer } from '../../ui-ir/index.ts';
import { childIds, forEachChildRef, isRecord, isStandardType, STANDARD_COMPONENT_TYPES } from './catalogue.ts';
import { at, tokensOf, type PathNode } from './path-node.ts';
import { DEFAULT_A2UI_LIMITS, type Violation } from './types.ts';
import { checkDataContents } from './validate-data.ts';
import { checkGraph, markReachable, type GraphNode } from './validate-graph.ts';
import { checkComponentProps, isWellFormedPath, type Issue, type PropSink } from './validate-props.ts';

/**
 * The semantic validator for server→client A2UI v0.8 streams (design.md §5.1): the union of
 * what WC, the JSON schema and the PY validator enforce, plus our contract (ids never equal
 * string values, never change type). Pure; runs on every outgoing batch and in `surfacer validate`.
 *
 * Per surface: a surface whose stream holds its beginRendering is checked as a full init (root
 * defined in every surfaceUpdate, nothing unreachable from it). Without beginRendering it is an
 * incremental update of an already rendered surface when `incremental` is set (no root needed,
 * orphans allowed), else an error (it would never render). Cycles, self references, duplicates,
 * dangling references and type changes fail in both modes. deleteSurface starts the surface over.
 */
export interface ValidateA2uiOptions {
  incremental?: boolean;
  /** Types the client already holds, per A2UI surface id: component id → type. */
  priorTypes?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Default: the 18 standard types. */
  allowedComponents?: readonly string[];
  /** Absent: any action name. */
  allowedActions?: readonly string[];
  maxNestingDepth?: number;
}

interface UpdateFacts {
  index: number;
  /** Every string id the message defines (also those reported invalid, to avoid cascades). */
  ids: Set<string>;
  nodes: Map<string, GraphNode>;
}

interface Generation {
  first: number;
  types: Map<string, string>;
  begin?: { index: number; root: string };
  updates: UpdateFacts[];
  /** Strings found equal to an id known when they were seen (located again when reported). */
  hits: Set<string>;
  /** The surfaceUpdates of this generation, to locate strings again. */
  bodies: { index: number; body: Record<string, unknown> }[];
  templates: { dataBinding: string; index: number; path: PathNode }[];
  /** Data written in the stream (base path + contents), read only when templates need it. */
  dataWrites: { base: string; contents: unknown }[];
  touched: boolean;
}

const MESSAGE_KEYS = ['surfaceUpdate', 'dataModelUpdate', 'beginRendering', 'deleteSurface'] as const;
type MessageKey = (typeof MESSAGE_KEYS)[number];
const BODY_KEYS: Record<MessageKey, readonly string[]> = {
  surfaceUpdate: ['surfaceId', 'components'],
  dataModelUpdate: ['surfaceId', 'path', 'contents'],
  beginRendering: ['surfaceId', 'root', 'catalogId', 'styles'],
  deleteSurface: ['surfaceId'],
};

class StreamValidator {
  readonly violations: Violation[] = [];
  private readonly surfaces = new Map<string, Generation[]>();
  private readonly allowed: ReadonlySet<string>;
  private readonly actions: ReadonlySet<string> | undefined;
  private readonly maxDepth: number;

  constructor(private readonly options: ValidateA2uiOptions) {
    this.allowed = new Set(options.allowedComponents ?? STANDARD_COMPONENT_TYPES);
    this.actions = options.allowedActions ? new Set(options.allowedActions) : undefined;
    this.maxDepth = options.maxNestingDepth ?? DEFAULT_A2UI_LIMITS.maxNestingDepth;
  }

  private report(code: ErrorCode, index: number, detail: string, path: PathNode | undefined, surfaceId?: string): void {
    const error = makeError(code, detail, { pointer: formatPointer([String(index), ...tokensOf(path).map(String)]) });
    this.violations.push(surfaceId === undefined ? { ...error, messageIndex: index } : { ...error, messageIndex: index, surfaceId });
  }

  private generation(surfaceId: string, index: number): Generation {
    let list = this.surfaces.get(surfaceId);
    if (!list) {
      const prior = this.options.priorTypes?.get(surfaceId);
      list = [newGeneration(index, prior)];
      this.surfaces.set(surfaceId, list);
    }
    return list[list.length - 1]!;
  }

  message(raw: unknown, index: number): void {
    if (!isRecord(raw)) return this.report('A2UI_S2C_MESSAGE_SHAPE', index, 'a message must be a JSON object', undefined);
    const keys = Object.keys(raw);
    const known = keys.filter((k): k is MessageKey => (MESSAGE_KEYS as readonly string[]).includes(k));
    if (known.length !== 1 || keys.length !== 1) {
      return this.report('A2UI_S2C_MESSAGE_SHAPE', index,
        `a message needs exactly one of ${MESSAGE_KEYS.join('/')} and nothing else, found ${keys.length ? keys.join(', ') : 'no keys'}`, undefined);
    }
    const kind = known[0]!;
    const body = raw[kind];
    const kp = at(undefined, kind);
    if (!isRecord(body)) return this.report('A2UI_S2C_MESSAGE_SHAPE', index, `${kind} must be an object`, kp);
    const surfaceId = body.surfaceId;
    if (typeof surfaceId !== 'string' || surfaceId === '') {
      return this.report('A2UI_S2C_MESSAGE_SHAPE', index, `${kind} needs a non-empty surfaceId`, at(kp, 'surfaceId'));
    }
    const issue: Issue = (code, detail, path) => this.report(code, index, detail, path, surfaceId);
    for (const k of Object.keys(body)) {
      if (!BODY_KEYS[kind].includes(k)) issue('A2UI_S2C_SCHEMA_INVALID', `${kind} has no property "${k}"`, at(kp, k));
    }
    if (kind === 'deleteSurface') {
      const list = this.surfaces.get(surfaceId) ?? [];
      list.push(newGeneration(index + 1, undefined));
      this.surfaces.set(surfaceId, list);
      return;
    }
    const gen = this.generation(surfaceId, index);
    if (kind === 'beginRendering') return this.beginRendering(body, gen, index, issue, kp);
    gen.touched = true;
    if (kind === 'dataModelUpdate') return this.dataModelUpdate(body, gen, issue, kp);
    this.surfaceUpdate(body, gen, index, issue, kp);
  }

  private beginRendering(body: Record<string, unknown>, gen: Generation, index: number, issue: Issue, kp: PathNode): void {
    if (typeof body.root !== 'string' || body.root === '') issue('A2UI_S2C_SCHEMA_INVALID', 'beginRendering needs a root id', at(kp, 'root'));
    else gen.begin = { index, root: body.root };
    if (Object.hasOwn(body, 'catalogId') && typeof body.catalogId !== 'string') {
      issue('A2UI_S2C_SCHEMA_INVALID', 'catalogId must be a string', at(kp, 'catalogId'));
    }
    if (!Object.hasOwn(body, 'styles')) return;
    const styles = body.styles;
    const sp = at(kp, 'styles');
    if (!isRecord(styles)) return issue('A2UI_S2C_STYLES_INVALID', 'styles must be an object', sp);
    for (const k of Object.keys(styles)) {
      if (k === 'font') {
        if (typeof styles.font !== 'string') issue('A2UI_S2C_STYLES_INVALID', 'font must be a string', at(sp, k));
      } else if (k === 'primaryColor') {
        if (typeof styles.primaryColor !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(styles.primaryColor)) {
          issue('A2UI_S2C_STYLES_INVALID', 'primaryColor must be #RRGGBB', at(sp, k));
        }
      } else issue('A2UI_S2C_STYLES_INVALID', `styles may hold only font and primaryColor, not "${k}"`, at(sp, k));
    }
  }

  private dataModelUpdate(body: Record<string, unknown>, gen: Generation, issue: Issue, kp: PathNode): void {
    let base = '';
    let rootPath = true;
    if (Object.hasOwn(body, 'path')) {
      const path = body.path;
      if (typeof path !== 'string') issue('A2UI_S2C_SCHEMA_INVALID', 'path must be a string', at(kp, 'path'));
      else if (path !== '/' && !isWellFormedPath(path)) issue('A2UI_S2C_PATH_INVALID', `malformed path ${JSON.stringify(path)}`, at(kp, 'path'));
      else if (path !== '/') {
        rootPath = false;
        base = path.startsWith('/') ? path : `/${path}`;
      }
    }
    if (!Object.hasOwn(body, 'contents')) return issue('A2UI_S2C_SCHEMA_INVALID', 'dataModelUpdate needs contents', kp);
    gen.dataWrites.push({ base, contents: body.contents });
    checkDataContents(body.contents, at(kp, 'contents'), issue, !rootPath);
  }

  private surfaceUpdate(body: Record<string, unknown>, gen: Generation, index: number, issue: Issue, kp: PathNode): void {
    const list = body.components;
    const lp = at(kp, 'components');
    if (!Array.isArray(list) || list.length === 0) {
      return issue('A2UI_S2C_SCHEMA_INVALID', 'components must be a non-empty array', lp);
    }
    const facts: UpdateFacts = { index, ids: new Set(), nodes: new Map() };
    gen.bodies.push({ index, body });
    // Ids of this message first (duplicates found here), so each string is checked against
    // every id it could hit with lookups only; ids of *later* messages: finishGeneration.
    const messageIds = facts.ids;
    for (let j = 0; j < list.length; j += 1) {
      const item: unknown = list[j];
      if (!isRecord(item) || typeof item.id !== 'string') continue;
      if (messageIds.has(item.id)) issue('A2UI_S2C_DUPLICATE_ID', `id "${item.id}" is defined twice in one surfaceUpdate`, at(at(lp, j), 'id'));
      messageIds.add(item.id);
    }
    const known = gen.types;
    const hits = gen.hits;
    // Integer pre-filter (length, first char) so most strings never reach a string-keyed lookup.
    const shapes = new Set<number>();
    for (const id of messageIds) shapes.add(shapeOf(id));
    for (const id of known.keys()) shapes.add(shapeOf(id));
    const onString = (value: string): void => {
      if (shapes.has(shapeOf(value)) && (messageIds.has(value) || known.has(value))) hits.add(value);
    };
    // Fast path: no locations; any finding (or a template, whose location is kept) re-checks
    // the component with locations, which is where findings are reported.
    let flagged = false;
    const fast: PropSink = {
      issue: () => { flagged = true; }, allowedActions: this.actions, locate: false, onString,
      onTemplate: () => { flagged = true; },
    };
    const located: PropSink = {
      issue, allowedActions: this.actions, locate: true, onString,
      onTemplate: (_componentId, dataBinding, path) => {
        if (typeof dataBinding === 'string') gen.templates.push({ dataBinding, index, path });
      },
    };
    const componentPath = (j: number, ...keys: string[]): PathNode => {
      let node = at(lp, j);
      for (const k of keys) node = at(node, k);
      return node;
    };
    for (let j = 0; j < list.length; j += 1) {
      const item: unknown = list[j];
      if (!isRecord(item)) { issue('A2UI_S2C_SCHEMA_INVALID', 'a component must be an object', componentPath(j)); continue; }
      for (const k in item) {
        if (Object.hasOwn(item, k) && k !== 'id' && k !== 'component' && k !== 'weight') issue('A2UI_S2C_SCHEMA_INVALID', `component has no property "${k}"`, componentPath(j, k));
      }
      if (Object.hasOwn(item, 'weight') && (typeof item.weight !== 'number' || !Number.isFinite(item.weight))) {
        issue('A2UI_S2C_SCHEMA_INVALID', 'weight must be a number', componentPath(j, 'weight'));
      }
      const id = item.id;
      if (typeof id !== 'string' || id === '' || id.includes(':')) {
        issue('A2UI_S2C_ID_INVALID', `component id must be a non-empty string without ":", got ${JSON.stringify(id)}`, componentPath(j, 'id'));
        continue;
      }
      const wrapper = item.component;
      if (!isRecord(wrapper)) { issue('A2UI_S2C_COMPONENT_TYPE_INVALID', `component "${id}" needs a component object`, componentPath(j, 'component')); continue; }
      let type: string | undefined;
      let typeCount = 0;
      for (const k in wrapper) if (Object.hasOwn(wrapper, k)) { type = k; typeCount += 1; }
      if (typeCount !== 1 || type === undefined) {
        const types = Object.keys(wrapper);
        issue('A2UI_S2C_COMPONENT_TYPE_INVALID', `component "${id}" needs exactly one type key, found ${types.length}${types.length ? ` (${types.join(', ')})` : ''}`, componentPath(j, 'component'));
        continue;
      }
      if (!isStandardType(type) || !this.allowed.has(type)) {
        issue('A2UI_S2C_COMPONENT_NOT_ALLOWED', `component "${id}" has type "${type}", not in the allowed catalogue`, componentPath(j, 'component', type));
        continue;
      }
      const previous = known.get(id);
      if (previous !== type) {
        if (previous !== undefined) issue('A2UI_S2C_TYPE_CHANGED', `component "${id}" was a ${previous} and is now a ${type}`, componentPath(j, 'component', type));
        known.set(id, type);
      }
      const props = wrapper[type];
      flagged = false;
      checkComponentProps(type, props, lp, fast);
      if (flagged) checkComponentProps(type, props, componentPath(j, 'component', type), located);
      if (isRecord(props) && !facts.nodes.has(id)) {
        facts.nodes.set(id, { id, j, kids: childIds(type, props), nodes: [], type, props, state: 0, depth: 0, next: 0, seen: 0 });
      }
    }
    // References, once every id of the message is known; locations only for findings.
    for (const c of facts.nodes.values()) {
      let fine = true;
      for (const ref of c.kids) {
        const node = ref === c.id ? undefined : facts.nodes.get(ref);
        if (node !== undefined) c.nodes.push(node);
        else if (ref === c.id || !messageIds.has(ref)) fine = false;
      }
      if (fine) continue;
      forEachChildRef(c.type, c.props, (ref, prop, i, template) => {
        if (typeof ref !== 'string' || (ref !== c.id && facts.ids.has(ref))) return;
        const pp = at(componentPath(c.j, 'component', c.type), prop);
        const path = template ? at(at(pp, 'template'), 'componentId')
          : i < 0 ? pp : prop === 'children' ? at(at(pp, 'explicitList'), i) : at(at(pp, i), 'child');
        if (ref === c.id) issue('A2UI_S2C_SELF_REFERENCE', `component "${c.id}" refers to itself`, path);
        else {
          issue(template ? 'A2UI_S2C_TEMPLATE_DANGLING' : 'A2UI_S2C_DANGLING_CHILD',
            `component "${c.id}" refers to "${ref}", which this surfaceUpdate does not define`, path);
        }
      });
    }
    checkGraph(facts.nodes.values(), this.maxDepth, issue, kp);
    gen.updates.push(facts);
  }

  finish(): Violation[] {
    for (const [surfaceId, gens] of this.surfaces) {
      gens.forEach((gen, g) => this.finishGeneration(surfaceId, gen, g === 0));
    }
    return this.violations.sort((a, b) => a.messageIndex - b.messageIndex);
  }

  private finishGeneration(surfaceId: string, gen: Generation, first: boolean): void {
    const report = (code: ErrorCode, index: number, detail: string, path?: PathNode): void =>
      this.report(code, index, detail, path, surfaceId);
    if (gen.begin) {
      const { root, index } = gen.begin;
      if (gen.updates.length === 0 && !gen.types.has(root)) {
        report('A2UI_S2C_ROOT_MISSING', index, `root "${root}" is not defined`, at(at(undefined, 'beginRendering'), 'root'));
      }
      for (const update of gen.updates) {
        if (!update.ids.has(root)) {
          report('A2UI_S2C_ROOT_MISSING', update.index, `surfaceUpdate does not contain root "${root}" (a full init sends the root and everything reachable from it)`, at(at(undefined, 'surfaceUpdate'), 'components'));
          continue;
        }
        const mark = update.index + 1;
        markReachable(update.nodes.get(root), mark);
        for (const node of update.nodes.values()) {
          const id = node.id;
          if (node.seen !== mark) report('A2UI_S2C_UNREACHABLE_COMPONENT', update.index, `component "${id}" is not reachable from root "${root}"`, at(at(undefined, 'surfaceUpdate'), 'components'));
        }
      }
      if (!this.options.incremental) this.checkTemplates(gen, report);
    } else if (gen.touched && !(this.options.incremental && first)) {
      report('A2UI_S2C_NOT_RENDERED', gen.first, `surface "${surfaceId}" gets updates but no beginRendering, so it never shows`);
    }
    // A string can also equal an id that only a later surfaceUpdate defines.
    if (gen.bodies.length > 1) for (const value of this.stringsIn(gen)) if (gen.types.has(value)) gen.hits.add(value);
    for (const id of gen.hits) {
      const where = this.locateString(gen, id);
      report('A2UI_S2C_ID_EQUALS_VALUE', where?.index ?? gen.first, `the string ${JSON.stringify(id)} equals a component id; WC would replace it with that component`, where?.path);
    }
  }

  /** Slow path: walks the generation's component properties again, with locations. */
  private walkStrings(gen: Generation, visit: (value: string, index: number, path: PathNode | undefined) => boolean): void {
    for (const { index, body } of gen.bodies) {
      const list = Array.isArray(body.components) ? body.components : [];
      let stop = false;
      const sink: PropSink = {
        issue: () => {}, allowedActions: undefined, locate: true,
        onString: (s, path) => { if (!stop) stop = visit(s, index, path); },
        onTemplate: () => {},
      };
      for (let j = 0; j < list.length && !stop; j += 1) {
        const item: unknown = list[j];
        if (!isRecord(item) || !isRecord(item.component)) continue;
        const type = Object.keys(item.component)[0];
        if (type === undefined || !isStandardType(type)) continue;
        checkComponentProps(type, item.component[type], at(at(at(at(at(undefined, 'surfaceUpdate'), 'components'), j), 'component'), type), sink);
      }
      if (stop) return;
    }
  }

  private stringsIn(gen: Generation): Set<string> {
    const out = new Set<string>();
    this.walkStrings(gen, (s) => { out.add(s); return false; });
    return out;
  }

  private locateString(gen: Generation, value: string): { index: number; path: PathNode } | undefined {
    let found: { index: number; path: PathNode } | undefined;
    this.walkStrings(gen, (s, index, path) => {
      if (s !== value || path === undefined) return false;
      found = { index, path };
      return true;
    });
    return found;
  }

  private checkTemplates(gen: Generation, report: (code: ErrorCode, index: number, detail: string, path?: PathNode) => void): void {
    if (gen.templates.length === 0) return;
    const written: string[] = [];
    for (const w of gen.dataWrites) {
      written.push(w.base === '' ? '/' : w.base);
      if (Array.isArray(w.contents)) {
        for (const e of w.contents) if (isRecord(e) && typeof e.key === 'string') written.push(`${w.base}/${e.key}`);
      }
    }
    for (const t of gen.templates) {
      if (!t.dataBinding.startsWith('/')) continue; // relative to an enclosing template item
      const bound = written.some((p) => p === '/' || p === t.dataBinding || p.startsWith(`${t.dataBinding}/`) || t.dataBinding.startsWith(`${p}/`));
      if (!bound) report('A2UI_S2C_TEMPLATE_UNBOUND', t.index, `template data ${t.dataBinding} is never initialised; the list stays empty`, t.path);
    }
  }
}

function shapeOf(s: string): number {
  return s.length * 65536 + (s.length > 0 ? s.charCodeAt(0) : 0);
}

function newGeneration(first: number, prior: ReadonlyMap<string, string> | undefined): Generation {
  return { first, types: new Map(prior ?? []), updates: [], hits: new Set(), bodies: [], templates: [], dataWrites: [], touched: false };
}

export function validateA2uiMessages(messages: readonly unknown[], options: ValidateA2uiOptions = {}): Violation[] {
  const validator = new StreamValidator(options);
  messages.forEach((m, i) => validator.message(m, i));
  return validator.finish();
}

/** The component types a stream leaves on each surface (for `priorTypes` of the next batch). */
export function collectA2uiComponentTypes(
  messages: readonly unknown[], into: Map<string, Map<string, string>> = new Map(),
): Map<string, Map<string, string>> {
  for (const m of messages) {
    if (!isRecord(m)) continue;
    if (isRecord(m.deleteSurface) && typeof m.deleteSurface.surfaceId === 'string') into.delete(m.deleteSurface.surfaceId);
    const su = m.surfaceUpdate;
    if (!isRecord(su) || typeof su.surfaceId !== 'string' || !Array.isArray(su.components)) continue;
    let types = into.get(su.surfaceId);
    if (!types) { types = new Map(); into.set(su.surfaceId, types); }
    for (const c of su.components) {
      if (isRecord(c) && typeof c.id === 'string' && isRecord(c.component)) {
        const type = Object.keys(c.component)[0];
        if (type !== undefined) types.set(c.id, type);
      }
    }
  }
  return into;
}
