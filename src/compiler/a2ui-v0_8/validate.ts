import { makeError, type ErrorCode } from '../../errors/index.ts';
import { formatPointer } from '../../ui-ir/index.ts';
import { forEachChildRef, isRecord, refIds, STANDARD_COMPONENT_TYPES, tableOf, TYPE_INFO, type Table, type TypeInfo } from './catalogue.ts';
import {
  A2UI_MAX_MESSAGE_DEPTH, at, DEFAULT_A2UI_LIMITS, foldUnreachable, isDanglingReference, pathBeyondDepth, tokensOf,
  type CutOff, type PathNode, type ValidateOptionsBase, type Violation,
} from '../a2ui-shared/index.ts';
import type { AppCatalogV08 } from '../components/wire-v08.ts';
import { checkDataContents } from './validate-data.ts';
import { checkGraph, markReachable, type GraphNode } from './validate-graph.ts';
import { checkComponentProps, isWellFormedPath, type Issue, type PropSink } from './validate-props.ts';

/** `Object.prototype.hasOwnProperty`: in a for-in over the same object V8 folds `.call` away (Object.hasOwn it does not). */
const hasOwn = Object.prototype.hasOwnProperty;

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
export interface ValidateA2uiOptions extends ValidateOptionsBase {
  /** The app catalogue the client holds: its component types are checked against their v0.8 schemas. */
  appCatalog?: AppCatalogV08;
}
const NO_KIDS: readonly string[] = Object.freeze([]);

interface UpdateFacts {
  index: number;
  /**
   * Every string id the message defines (also those reported invalid, to avoid cascades), with
   * its slot in `nodeAt`: the index of one of its definitions (the only one, without duplicates).
   */
  ids: Map<string, number>;
  /** By slot, the graph node of an id's first valid definition. */
  nodeAt: (GraphNode | undefined)[];
  /** The graph nodes in message order. */
  order: GraphNode[];
}

interface Generation {
  first: number;
  /** Component id → type, as far as the stream has got; read it through `typesOf` (see `pending`). */
  types: Map<string, string>;
  /**
   * Types of one surfaceUpdate not yet in `types` (ids then types, pairwise): a message that
   * starts a generation with no duplicate ids cannot change a type, so its entries are only
   * written into `types` when a later message or the end of the stream reads them.
   */
  pending: string[];
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
  /** Types both standard and allowed. */
  private readonly allowed: Table<TypeInfo>;
  private readonly actions: ReadonlySet<string> | undefined;
  private readonly maxDepth: number;

  constructor(private readonly options: ValidateA2uiOptions) {
    if (options.allowedComponents === undefined) this.allowed = TYPE_INFO;
    else {
      const allowed = new Set<string>(options.allowedComponents);
      this.allowed = tableOf(STANDARD_COMPONENT_TYPES.filter((t) => allowed.has(t)).map((t) => [t, TYPE_INFO[t]!] as const));
    }
    this.actions = options.allowedActions ? new Set(options.allowedActions) : undefined;
    this.maxDepth = options.maxNestingDepth ?? DEFAULT_A2UI_LIMITS.maxNestingDepth;
  }

  /** An app component's properties against its v0.8 schema, and its item buttons' actions against the allowlist. */
  private customProps(schema: { safeParse(v: unknown): { success: boolean; error?: { issues: ReadonlyArray<{ message: string; path: ReadonlyArray<PropertyKey> }> } } },
    type: string, props: unknown, path: PathNode, issue: (code: ErrorCode, detail: string, path: PathNode) => void): void {
    const parsed = schema.safeParse(props);
    if (!parsed.success) {
      for (const found of parsed.error?.issues ?? []) {
        issue('A2UI_S2C_SCHEMA_INVALID', `${type}: ${found.message}`, found.path.reduce<PathNode>((node, k) => at(node, typeof k === 'number' ? k : String(k)), path));
      }
      return;
    }
    const buttons = isRecord(props) && Array.isArray(props.itemActions) ? props.itemActions : [];
    buttons.forEach((button: unknown, i) => {
      const name = isRecord(button) && isRecord(button.action) ? button.action.name : undefined;
      if (this.actions !== undefined && typeof name === 'string' && !this.actions.has(name)) {
        issue('A2UI_S2C_ACTION_NOT_ALLOWED', `action "${name}" is not allowlisted`, at(at(at(at(path, 'itemActions'), i), 'action'), 'name'));
      }
    });
  }

  report(code: ErrorCode, index: number, detail: string, path: PathNode | undefined, surfaceId?: string, componentId?: string): void {
    this.violations.push(finding(code, index, detail, path, surfaceId, componentId));
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
    const issue = issuesOf(this, index, surfaceId);
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
    if (hasOwn.call(body, 'catalogId') && typeof body.catalogId !== 'string') {
      issue('A2UI_S2C_SCHEMA_INVALID', 'catalogId must be a string', at(kp, 'catalogId'));
    }
    if (!hasOwn.call(body, 'styles')) return;
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
    if (hasOwn.call(body, 'path')) {
      const path = body.path;
      if (typeof path !== 'string') issue('A2UI_S2C_SCHEMA_INVALID', 'path must be a string', at(kp, 'path'));
      else if (path !== '/' && !isWellFormedPath(path)) issue('A2UI_S2C_PATH_INVALID', `malformed path ${JSON.stringify(path)}`, at(kp, 'path'));
      else if (path !== '/') {
        rootPath = false;
        base = path.startsWith('/') ? path : `/${path}`;
      }
    }
    if (!hasOwn.call(body, 'contents')) return issue('A2UI_S2C_SCHEMA_INVALID', 'dataModelUpdate needs contents', kp);
    // The contents sit at depth 2 of their message (message, dataModelUpdate, contents).
    const deep = pathBeyondDepth(body.contents, 2);
    if (deep !== undefined) {
      return issue('A2UI_S2C_DATA_TOO_DEEP', `the contents nest deeper than ${A2UI_MAX_MESSAGE_DEPTH} levels (counting the message as 0, as the official validator does)`,
        deep.reduce<PathNode>((node, key) => at(node, key), at(kp, 'contents')));
    }
    gen.dataWrites.push({ base, contents: body.contents });
    checkDataContents(body.contents, at(kp, 'contents'), issue, !rootPath);
  }

  private surfaceUpdate(body: Record<string, unknown>, gen: Generation, index: number, issue: Issue, kp: PathNode): void {
    const list = body.components;
    const lp = at(kp, 'components');
    if (!Array.isArray(list) || list.length === 0) {
      return issue('A2UI_S2C_SCHEMA_INVALID', 'components must be a non-empty array', lp);
    }
    const facts: UpdateFacts = { index, ids: new Map(), nodeAt: new Array<GraphNode | undefined>(list.length), order: [] };
    gen.bodies.push({ index, body });
    // Ids of this message first (duplicates found here), so each string is checked against
    // every id it could hit with lookups only; ids of *later* messages: finishGeneration.
    const messageIds = facts.ids;
    // Integer pre-filter (length, first char) so most strings never reach a string-keyed lookup:
    // per length (mod 16), a bit per first character (mod 32); a string can equal an id only if
    // its bit is set. 16 rows keep the table on V8's heap (64 bytes), cheap to allocate.
    const shapes = new Uint32Array(SHAPE_ROWS);
    let duplicates = false;
    for (let j = 0; j < list.length; j += 1) {
      const item: unknown = list[j];
      if (!isRecord(item)) continue;
      const id = item.id;
      if (typeof id !== 'string') continue;
      const before = messageIds.size;
      messageIds.set(id, j);
      if (messageIds.size === before) {
        duplicates = true;
        issue('A2UI_S2C_DUPLICATE_ID', `id "${id}" is defined twice in one surfaceUpdate`, at(at(lp, j), 'id'));
      } else shapes[id.length & SHAPE_ROW_MASK] = shapes[id.length & SHAPE_ROW_MASK]! | shapeBit(id);
    }
    const known = typesOf(gen);
    const hits = gen.hits;
    const fresh = known.size === 0 && !duplicates;
    const pending = gen.pending;
    const nodeAt = facts.nodeAt;
    for (const id of known.keys()) shapes[id.length & SHAPE_ROW_MASK] = shapes[id.length & SHAPE_ROW_MASK]! | shapeBit(id);
    const onString = idHits(shapes, messageIds, known, hits);
    // Fast path: no locations; any finding (or a template, whose location is kept) re-checks
    // the component with locations, which is where findings are reported.
    const fast = new FlagSink(this.actions, onString);
    const located: PropSink = {
      issue, allowedActions: this.actions, locate: true, onString, onTemplate: templatesOf(gen, index),
    };
    for (let j = 0; j < list.length; j += 1) {
      const item: unknown = list[j];
      if (!isRecord(item)) { issue('A2UI_S2C_SCHEMA_INVALID', 'a component must be an object', pathOf(lp, j)); continue; }
      for (const k in item) {
        if (hasOwn.call(item, k) && k !== 'id' && k !== 'component' && k !== 'weight') issue('A2UI_S2C_SCHEMA_INVALID', `component has no property "${k}"`, pathOf(lp, j, k));
      }
      if (hasOwn.call(item, 'weight') && (typeof item.weight !== 'number' || !Number.isFinite(item.weight))) {
        issue('A2UI_S2C_SCHEMA_INVALID', 'weight must be a number', pathOf(lp, j, 'weight'));
      }
      const id = item.id;
      if (typeof id !== 'string' || id === '' || id.includes(':')) {
        issue('A2UI_S2C_ID_INVALID', `component id must be a non-empty string without ":", got ${JSON.stringify(id)}`, pathOf(lp, j, 'id'));
        continue;
      }
      const wrapper = item.component;
      if (!isRecord(wrapper)) { issue('A2UI_S2C_COMPONENT_TYPE_INVALID', `component "${id}" needs a component object`, pathOf(lp, j, 'component')); continue; }
      let type: string | undefined;
      let typeCount = 0;
      for (const k in wrapper) if (hasOwn.call(wrapper, k)) { type = k; typeCount += 1; }
      if (typeCount !== 1 || type === undefined) {
        const types = Object.keys(wrapper);
        issue('A2UI_S2C_COMPONENT_TYPE_INVALID', `component "${id}" needs exactly one type key, found ${types.length}${types.length ? ` (${types.join(', ')})` : ''}`, pathOf(lp, j, 'component'));
        continue;
      }
      const info = this.allowed[type];
      // An app component, when the client holds the app catalogue (checked by its schema below).
      const custom = info === undefined && !hasOwn.call(TYPE_INFO, type) ? this.options.appCatalog?.components.get(type) : undefined;
      if (info === undefined && custom === undefined) {
        issue('A2UI_S2C_COMPONENT_NOT_ALLOWED', `component "${id}" has type "${type}", not in the allowed catalogue`, pathOf(lp, j, 'component', type));
        continue;
      }
      // Without duplicates, a generation that knew no types before this message cannot know this id yet.
      if (fresh) pending.push(id, type);
      else {
        const previous = known.get(id);
        if (previous !== type) {
          if (previous !== undefined) issue('A2UI_S2C_TYPE_CHANGED', `component "${id}" was a ${previous} and is now a ${type}`, pathOf(lp, j, 'component', type));
          known.set(id, type);
        }
      }
      const props = wrapper[type];
      if (info !== undefined) {
        fast.flagged = false;
        checkComponentProps(info, props, lp, fast);
        if (fast.flagged) checkComponentProps(info, props, pathOf(lp, j, 'component', type), located);
      } else this.customProps(custom!, type, props, pathOf(lp, j, 'component', type), issue);
      if (isRecord(props)) {
        // Without duplicate ids in the message, the slot of an id is its index, and empty.
        const slot = duplicates ? messageIds.get(id)! : j;
        if (nodeAt[slot] === undefined) {
          // An app component refers to no other component: a leaf of the graph.
          const kids = info === undefined ? NO_KIDS : refIds(info.refs, props);
          const node: GraphNode = { id, j, kids, nodes: NO_NODES, type, props, state: 0, depth: 0, next: 0, seen: 0 };
          nodeAt[slot] = node;
          facts.order.push(node);
        }
      }
    }
    // References, once every id of the message is known; locations only for findings.
    const order = facts.order;
    for (let n = 0; n < order.length; n += 1) {
      const c = order[n]!;
      let fine = true;
      const kids = c.kids;
      if (kids.length === 0) continue;
      const nodes = new Array<GraphNode>(kids.length);
      let count = 0;
      for (let k = 0; k < kids.length; k += 1) {
        const ref = kids[k]!;
        if (ref === c.id) { fine = false; continue; }
        const slot = messageIds.get(ref);
        if (slot === undefined) { fine = false; continue; }
        const node = nodeAt[slot];
        if (node !== undefined) nodes[count++] = node; // else defined here, but invalid (reported already)
      }
      if (count !== nodes.length) nodes.length = count;
      c.nodes = nodes;
      if (fine) continue;
      forEachChildRef(c.type, c.props, (ref, prop, i, template) => {
        if (typeof ref !== 'string' || (ref !== c.id && facts.ids.has(ref))) return;
        const pp = at(pathOf(lp, c.j, 'component', c.type), prop);
        const path = template ? at(at(pp, 'template'), 'componentId')
          : i < 0 ? pp : prop === 'children' ? at(at(pp, 'explicitList'), i) : at(at(pp, i), 'child');
        if (ref === c.id) issue('A2UI_S2C_SELF_REFERENCE', `component "${c.id}" refers to itself`, path);
        else {
          issue(template ? 'A2UI_S2C_TEMPLATE_DANGLING' : 'A2UI_S2C_DANGLING_CHILD',
            `component "${c.id}" refers to "${ref}", which this surfaceUpdate does not define`, path);
        }
      });
    }
    checkGraph(order, this.maxDepth, issue, kp);
    gen.updates.push(facts);
  }

  finish(): Violation[] {
    for (const [surfaceId, gens] of this.surfaces) {
      gens.forEach((gen, g) => this.finishGeneration(surfaceId, gen, g === 0));
    }
    return this.violations.sort((a, b) => a.messageIndex - b.messageIndex);
  }

  private finishGeneration(surfaceId: string, gen: Generation, first: boolean): void {
    const report = reportsOf(this, surfaceId);
    if (gen.begin) {
      const { root, index } = gen.begin;
      if (gen.updates.length === 0 && !typesOf(gen).has(root)) {
        report('A2UI_S2C_ROOT_MISSING', index, `root "${root}" is not defined`, at(at(undefined, 'beginRendering'), 'root'));
      }
      for (const update of gen.updates) {
        if (!update.ids.has(root)) {
          report('A2UI_S2C_ROOT_MISSING', update.index, `surfaceUpdate does not contain root "${root}" (a full init sends the root and everything reachable from it)`, at(at(undefined, 'surfaceUpdate'), 'components'));
          continue;
        }
        const mark = update.index + 1;
        markReachable(update.nodeAt[update.ids.get(root)!], mark);
        const cut: CutOff[] = [];
        for (const node of update.order) {
          const id = node.id;
          if (node.seen !== mark) {
            cut.push({ id, kids: node.kids, finding: finding('A2UI_S2C_UNREACHABLE_COMPONENT', update.index, `component "${id}" is not reachable from root "${root}"`,
              at(at(undefined, 'surfaceUpdate'), 'components'), surfaceId, id) });
          }
        }
        if (cut.length > 0) {
          // Folded into the finding that explains them (follow-ons.ts): the dangling references of this update.
          const dangling = this.violations.filter((v) => v.messageIndex === update.index && v.surfaceId === surfaceId && isDanglingReference(v));
          for (const v of foldUnreachable(cut, dangling)) this.violations.push(v);
        }
      }
      if (!this.options.incremental) this.checkTemplates(gen, report);
    } else if (gen.touched && !(this.options.incremental && first)) {
      report('A2UI_S2C_NOT_RENDERED', gen.first, `surface "${surfaceId}" gets updates but no beginRendering, so it never shows`);
    }
    // A string can also equal an id that only a later surfaceUpdate defines.
    if (gen.bodies.length > 1) {
      const types = typesOf(gen);
      for (const value of this.stringsIn(gen)) if (types.has(value)) gen.hits.add(value);
    }
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
        const info = type === undefined ? undefined : TYPE_INFO[type];
        if (type === undefined || info === undefined) continue;
        checkComponentProps(info, item.component[type], at(at(at(at(at(undefined, 'surfaceUpdate'), 'components'), j), 'component'), type), sink);
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

  private checkTemplates(gen: Generation, report: Report): void {
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

// Closures of the hot path come from factories: an anonymous function gets no runtime name
// (a tsx/esbuild `keepNames` build defines `name` on every named closure it creates).

/** Reports of one message. */
function issuesOf(validator: StreamValidator, index: number, surfaceId: string): Issue {
  return (code, detail, path) => validator.report(code, index, detail, path, surfaceId);
}

type Report = (code: ErrorCode, index: number, detail: string, path?: PathNode) => void;

/** Reports of one surface (any message). */
function finding(code: ErrorCode, index: number, detail: string, path: PathNode | undefined, surfaceId?: string, componentId?: string): Violation {
  const error = makeError(code, detail, { pointer: formatPointer([String(index), ...tokensOf(path).map(String)]) });
  return { ...error, messageIndex: index, ...(surfaceId === undefined ? {} : { surfaceId }), ...(componentId === undefined ? {} : { componentId }) };
}

function reportsOf(validator: StreamValidator, surfaceId: string): Report {
  return (code, index, detail, path) => validator.report(code, index, detail, path, surfaceId);
}

/** Records strings equal to an id of the message or one known before it (through the shape filter). */
function idHits(shapes: Uint32Array, messageIds: ReadonlyMap<string, unknown>, known: ReadonlyMap<string, string>,
  hits: Set<string>): (value: string) => void {
  return (value) => {
    if ((shapes[value.length & SHAPE_ROW_MASK]! & shapeBit(value)) === 0) return;
    if (messageIds.has(value) || known.has(value)) hits.add(value);
  };
}

function templatesOf(gen: Generation, index: number): PropSink['onTemplate'] {
  return (_componentId, dataBinding, path) => {
    if (typeof dataBinding === 'string') gen.templates.push({ dataBinding, index, path });
  };
}

/** The fast path's sink: no locations, and any finding or template only raises `flagged`. */
class FlagSink implements PropSink {
  flagged = false;
  readonly locate = false;
  constructor(readonly allowedActions: ReadonlySet<string> | undefined, readonly onString: (value: string) => void) {}
  issue(): void { this.flagged = true; }
  onTemplate(): void { this.flagged = true; }
}

function pathOf(lp: PathNode, j: number, a?: string, b?: string, c?: string): PathNode {
  let node = at(lp, j);
  if (a !== undefined) node = at(node, a);
  if (b !== undefined) node = at(node, b);
  if (c !== undefined) node = at(node, c);
  return node;
}

/** The `nodes` of a component without children (shared, never written). */
const NO_NODES: readonly GraphNode[] = Object.freeze([]);

/** Rows of the shape filter (by length mod 16). */
const SHAPE_ROWS = 16;
const SHAPE_ROW_MASK = SHAPE_ROWS - 1;

/** The bit of a string's first character (mod 32) in its length's row. */
function shapeBit(s: string): number {
  return 1 << ((s.length > 0 ? s.charCodeAt(0) : 0) & 31);
}

function newGeneration(first: number, prior: ReadonlyMap<string, string> | undefined): Generation {
  return { first, types: new Map(prior ?? []), pending: [], updates: [], hits: new Set(), bodies: [], templates: [], dataWrites: [], touched: false };
}

function typesOf(gen: Generation): Map<string, string> {
  const pending = gen.pending;
  if (pending.length > 0) {
    for (let i = 0; i < pending.length; i += 2) gen.types.set(pending[i]!, pending[i + 1]!);
    gen.pending = [];
  }
  return gen.types;
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
