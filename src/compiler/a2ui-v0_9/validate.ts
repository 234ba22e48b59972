import type { z } from 'zod';
import { A2UI_V09_VERSIONS, BASIC_CATALOG_IDS, FORBIDDEN_SEGMENTS, getData, setData, SERVER_MESSAGE_KINDS } from '../../a2ui-v0_9-protocol/index.ts';
import { makeError, type ErrorCode } from '../../errors/index.ts';
import { formatPointer } from '../../ui-ir/index.ts';
import {
  A2UI_MAX_MESSAGE_DEPTH, DEFAULT_A2UI_LIMITS, foldUnreachable, pathBeyondDepth, type CutOff, type Violation,
} from '../a2ui-shared/index.ts';
import type { ValidateA2uiV09Options } from './types.ts';
import {
  checkComponent, isWellFormedPath, newSharedContext, refPath, type ChildRefFound, type Finding,
} from './validate-component.ts';

/**
 * The semantic validator for server→client A2UI v0.9 streams: what the official processor and
 * renderer refuse or cannot render, plus our contract (ids never change type; no orphans in an
 * init; actions allowlisted and sendable). Pure; runs on every outgoing batch and in
 * `surfacer validate --a2ui-version 0.9`.
 *
 * v0.9 renders progressively: an updateComponents may refer to ids that a later message defines,
 * and components the tree no longer reaches stay on the client unrendered. So references are
 * checked at the end of the stream, against everything the client then holds; a component is an
 * orphan only if the tree never reached it.
 *
 * Per surface, a generation starts at the beginning of the stream or at a deleteSurface. One that
 * starts with createSurface is fully known: the root must arrive, every reference must resolve,
 * the data model is tracked from empty. Otherwise the client already holds the surface: in
 * `incremental` mode that is allowed (with `priorTypes`, references are checked against the ids
 * it holds), in full mode it is A2UI_S2C_SURFACE_NOT_CREATED.
 */
interface Def {
  index: number;
  j: number;
  type: string;
  refs: ChildRefFound[];
  /** The data path of a list template among the children. */
  templatePath?: string | undefined;
  /** Cycle search state, stamped per search (see checkCycles): no map of states per message. */
  mark: number;
}

interface Generation {
  first: number;
  /** Opened by createSurface in this stream: the client's whole state is known. */
  created: boolean;
  /** The client's ids are known (created here, or priorTypes given). */
  idsKnown: boolean;
  /** The types of the ids the client held before the stream (priorTypes), read only. */
  prior: ReadonlyMap<string, string> | undefined;
  /** Latest definition of each id in this stream. */
  defs: Map<string, Def>;
  /** Ids the tree reached after some message (created generations only). */
  reached: Set<string>;
  /**
   * The tree depth over the current definitions, when the last updateComponents computed it with
   * the reachable set (same walk, same order as treeDepth); undefined once definitions change.
   */
  depth: TreeDepth | undefined;
  /** App component schemas by type, when the surface's catalogue is the app's (or unknown: an update). */
  custom: ReadonlyMap<string, z.ZodType> | undefined;
  data: unknown;
  /** Data is tracked from createSurface on; a write the client refuses is reported. */
  dataKnown: boolean;
  live: boolean;
}

const BODY_KEYS: Record<(typeof SERVER_MESSAGE_KINDS)[number], readonly string[]> = {
  createSurface: ['surfaceId', 'catalogId', 'theme', 'sendDataModel'],
  updateComponents: ['surfaceId', 'components'],
  updateDataModel: ['surfaceId', 'path', 'value'],
  deleteSurface: ['surfaceId'],
};

const ROOT = 'root';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Path = readonly (string | number)[];

class StreamValidator {
  readonly violations: Violation[] = [];
  private readonly surfaces = new Map<string, Generation[]>();
  private readonly allowed: ReadonlySet<string> | undefined;
  private readonly actions: ReadonlySet<string> | undefined;
  private readonly catalogs: ReadonlySet<string>;
  private readonly maxDepth: number;
  /** The last Button context checked (a form's buttons share one). */
  private readonly shared = newSharedContext();

  constructor(private readonly options: ValidateA2uiV09Options) {
    this.allowed = options.allowedComponents ? new Set(options.allowedComponents) : undefined;
    this.actions = options.allowedActions ? new Set(options.allowedActions) : undefined;
    this.catalogs = new Set([...(options.catalogIds ?? BASIC_CATALOG_IDS), ...(options.appCatalog === undefined ? [] : [options.appCatalog.catalogId])]);
    this.maxDepth = options.maxNestingDepth ?? DEFAULT_A2UI_LIMITS.maxNestingDepth;
  }

  report(code: ErrorCode, index: number, detail: string, path: Path, surfaceId?: string, componentId?: string): void {
    this.record(code, index, detail, path, surfaceId, componentId);
  }

  /** Reports a finding and returns it (follow-ons are folded into it later). */
  record(code: ErrorCode, index: number, detail: string, path: Path, surfaceId?: string, componentId?: string): Violation {
    const error = makeError(code, detail, { pointer: formatPointer([String(index), ...path.map(String)]) });
    const found: Violation = {
      ...error, messageIndex: index, ...(surfaceId === undefined ? {} : { surfaceId }), ...(componentId === undefined ? {} : { componentId }),
    };
    this.violations.push(found);
    return found;
  }

  /**
   * The reporter of one message's findings. Returned, not declared as a named const: the tsx
   * (esbuild) build names every function bound to a name at run time, once per message here.
   */
  private issuesOf(index: number, kind: string, surfaceId: string): Issue {
    return (code, detail, path, componentId) => this.report(code, index, detail, [kind, ...path], surfaceId, componentId);
  }

  private newGeneration(surfaceId: string, first: number, created: boolean, catalogId?: unknown): Generation {
    const prior = created ? undefined : this.options.priorTypes?.get(surfaceId);
    const app = this.options.appCatalog;
    // A surface created here uses the catalogue it named; one only updated here may be either.
    const custom = app !== undefined && (!created || catalogId === app.catalogId) ? app.components : undefined;
    const gen: Generation = {
      first, created, idsKnown: created || prior !== undefined, prior, defs: new Map(), reached: new Set(), depth: undefined, custom,
      data: created ? {} : undefined, dataKnown: created, live: true,
    };
    const list = this.surfaces.get(surfaceId) ?? [];
    list.push(gen);
    this.surfaces.set(surfaceId, list);
    return gen;
  }

  message(raw: unknown, index: number): void {
    if (!isRecord(raw)) return this.report('A2UI_S2C_MESSAGE_SHAPE', index, 'a message must be a JSON object', []);
    const keys = Object.keys(raw);
    const kinds = SERVER_MESSAGE_KINDS.filter((k) => Object.hasOwn(raw, k));
    const others = keys.filter((k) => k !== 'version' && !(SERVER_MESSAGE_KINDS as readonly string[]).includes(k));
    if (kinds.length !== 1 || others.length > 0) {
      return this.report('A2UI_S2C_MESSAGE_SHAPE', index,
        `a message needs "version" and exactly one of ${SERVER_MESSAGE_KINDS.join('/')}, found ${keys.length ? keys.join(', ') : 'no keys'}`, []);
    }
    if (!(A2UI_V09_VERSIONS as readonly unknown[]).includes(raw.version)) {
      return this.report('A2UI_S2C_MESSAGE_SHAPE', index, `version must be ${A2UI_V09_VERSIONS.join(' or ')}, got ${JSON.stringify(raw.version)}`, ['version']);
    }
    const kind = kinds[0]!;
    const body = raw[kind];
    if (!isRecord(body)) return this.report('A2UI_S2C_MESSAGE_SHAPE', index, `${kind} must be an object`, [kind]);
    const surfaceId = body.surfaceId;
    if (typeof surfaceId !== 'string' || surfaceId === '') {
      return this.report('A2UI_S2C_MESSAGE_SHAPE', index, `${kind} needs a non-empty surfaceId`, [kind, 'surfaceId']);
    }
    const issue = this.issuesOf(index, kind, surfaceId);
    for (const k of Object.keys(body)) if (!BODY_KEYS[kind].includes(k)) issue('A2UI_S2C_SCHEMA_INVALID', `${kind} has no property "${k}"`, [k]);
    const list = this.surfaces.get(surfaceId);
    const current = list?.[list.length - 1];
    if (kind === 'deleteSurface') {
      // Deleting a surface the client does not hold is a no-op for it; the next createSurface starts over.
      if (current) current.live = false;
      else this.newGeneration(surfaceId, index, false).live = false;
      return;
    }
    if (kind === 'createSurface') {
      if (current?.live && current.created) {
        issue('A2UI_S2C_SURFACE_EXISTS', `surface "${surfaceId}" already exists; delete it before creating it again`, []);
      } else if (current?.live && !current.created && this.options.incremental === true) {
        // In incremental mode a surface updated without a createSurface is one the client holds.
        issue('A2UI_S2C_SURFACE_EXISTS', `surface "${surfaceId}" is already on the client (it got updates before this createSurface)`, []);
      }
      this.createSurface(body, issue);
      this.newGeneration(surfaceId, index, true, body.catalogId);
      return;
    }
    let gen = current;
    if (gen === undefined || !gen.live) {
      if (gen !== undefined || this.options.incremental !== true) {
        issue('A2UI_S2C_SURFACE_NOT_CREATED', `surface "${surfaceId}" has no createSurface before this ${kind}`, []);
      }
      if (gen === undefined || !gen.live) gen = this.newGeneration(surfaceId, index, false);
    }
    if (kind === 'updateDataModel') this.updateDataModel(body, gen, issue);
    else this.updateComponents(body, gen, index, issue);
  }

  private createSurface(body: Record<string, unknown>, issue: Issue): void {
    if (typeof body.catalogId !== 'string') issue('A2UI_S2C_SCHEMA_INVALID', 'createSurface needs a catalogId', ['catalogId']);
    else if (!this.catalogs.has(body.catalogId)) {
      issue('A2UI_S2C_CATALOG_UNKNOWN', `catalog ${JSON.stringify(body.catalogId)} is not one the client has`, ['catalogId']);
    }
    if (Object.hasOwn(body, 'sendDataModel') && typeof body.sendDataModel !== 'boolean') {
      issue('A2UI_S2C_SCHEMA_INVALID', 'sendDataModel must be a boolean', ['sendDataModel']);
    }
  }

  private updateDataModel(body: Record<string, unknown>, gen: Generation, issue: Issue): void {
    // The value sits at depth 2 of its message (message, updateDataModel, value).
    const deep = pathBeyondDepth(body.value, 2);
    if (deep !== undefined) {
      return issue('A2UI_S2C_DATA_TOO_DEEP', `the value nests deeper than ${A2UI_MAX_MESSAGE_DEPTH} levels (counting the message as 0, as the official validator does)`, ['value', ...deep]);
    }
    let path = '/';
    if (Object.hasOwn(body, 'path')) {
      if (typeof body.path !== 'string') return issue('A2UI_S2C_SCHEMA_INVALID', 'path must be a string', ['path']);
      if (body.path !== '' && !isWellFormedPath(body.path, false)) {
        return issue('A2UI_S2C_PATH_INVALID', `malformed path ${JSON.stringify(body.path)}`, ['path']);
      }
      path = body.path === '' ? '/' : body.path;
    }
    const bad = forbiddenKey(body.value, ['value']);
    if (bad !== undefined) return issue('A2UI_S2C_DATA_KEY_INVALID', `data key ${JSON.stringify(bad.at(-1))} cannot be addressed`, bad);
    if (!gen.dataKnown) return;
    const result = setData(gen.data, path, body.value);
    if (result.ok) gen.data = result.data;
    else issue('A2UI_S2C_DATA_PATH_CONFLICT', `cannot write ${path}: ${result.reason}`, ['path']);
  }

  private updateComponents(body: Record<string, unknown>, gen: Generation, index: number, issue: Issue): void {
    const list = body.components;
    if (!Array.isArray(list) || list.length === 0) return issue('A2UI_S2C_SCHEMA_INVALID', 'components must be a non-empty array', ['components']);
    // The ids of this message, first occurrences in order (where cycle searches start). A duplicate
    // is an id whose definition is from this very message, or one that failed its checks here
    // (rare: that set is made only then); no set of every id.
    const ids: string[] = [];
    let failed: Set<string> | undefined;
    const findings: Finding[] = [];
    for (let j = 0; j < list.length; j += 1) {
      const item: unknown = list[j];
      if (!isRecord(item)) { issue('A2UI_S2C_SCHEMA_INVALID', 'a component must be an object', ['components', j]); continue; }
      const id = item.id;
      if (typeof id !== 'string' || id === '' || id.includes(':')) {
        issue('A2UI_S2C_ID_INVALID', `component id must be a non-empty string without ":", got ${JSON.stringify(id)}`, ['components', j, 'id']);
        continue;
      }
      const known = gen.defs.get(id);
      if ((known !== undefined && known.index === index) || failed?.has(id) === true) {
        issue('A2UI_S2C_DUPLICATE_ID', `id "${id}" is defined twice in one updateComponents`, ['components', j, 'id']);
      } else ids.push(id);
      const type = item.component;
      if (typeof type !== 'string' || type === '') {
        issue('A2UI_S2C_COMPONENT_TYPE_INVALID', `component "${id}" needs a "component" type name`, ['components', j, 'component']);
        (failed ??= new Set()).add(id);
        continue;
      }
      if (this.allowed !== undefined && !this.allowed.has(type)) {
        issue('A2UI_S2C_COMPONENT_NOT_ALLOWED', `component "${id}" has type "${type}", not in the allowed catalogue`, ['components', j, 'component']);
        (failed ??= new Set()).add(id);
        continue;
      }
      const refs = checkComponent(item, type, this.actions, findings, this.shared, gen.custom);
      if (!Array.isArray(refs)) {
        issue(refs.code, refs.detail, ['components', j, ...refs.path]);
        (failed ??= new Set()).add(id);
        continue;
      }
      if (findings.length > 0) {
        for (const f of findings) issue(f.code, f.detail, ['components', j, ...f.path]);
        // Setting an array's length is a runtime call: only when there was something to clear.
        findings.length = 0;
      }
      // The type the client holds for the id: its latest definition here, else the prior one.
      const previous = known?.type ?? gen.prior?.get(id);
      if (previous !== undefined && previous !== type) issue('A2UI_S2C_TYPE_CHANGED', `component "${id}" was a ${previous} and is now a ${type}`, ['components', j, 'component']);
      const children = item.children;
      const templatePath = isRecord(children) && typeof children.path === 'string' ? children.path : undefined;
      gen.defs.set(id, { index, j, type, refs, templatePath, mark: 0 });
    }
    this.checkCycles(gen, ids, issue);
    gen.depth = undefined;
    if (gen.created && gen.defs.has(ROOT)) {
      const now = this.reachable(gen);
      // The first tree of a surface (every init) is taken as it is, not copied id by id.
      if (gen.reached.size === 0) gen.reached = now;
      else for (const id of now) gen.reached.add(id);
    }
  }

  /**
   * Ids reachable from the root through the definitions known so far. The same walk, in the
   * same order, as treeDepth (ids without a definition push nothing), so it records the tree
   * depth too: finish reuses it if no definition changes after (one walk fewer per init).
   */
  private reachable(gen: Generation): Set<string> {
    const out = new Set<string>();
    const stack = [ROOT];
    const depths = [1];
    let best = 0;
    let at = gen.first;
    while (stack.length > 0) {
      const id = stack.pop()!;
      const depth = depths.pop()!;
      if (out.has(id)) continue;
      out.add(id);
      const def = gen.defs.get(id);
      if (def === undefined) continue;
      if (depth > best) { best = depth; at = def.index; }
      for (let i = 0; i < def.refs.length; i += 1) { stack.push(def.refs[i]!.id); depths.push(depth + 1); }
    }
    gen.depth = { depth: best, index: at };
    return out;
  }

  /**
   * A cycle the message closes goes through one of its components: one depth-first walk from
   * them over every definition known, iterative so adversarial nesting cannot overflow the
   * stack. A definition's mark is `2r - 1` while it is on the current branch of search `r` and
   * `2r` once done; any older mark means unseen. Ids without a definition end no cycle.
   */
  private cycleSearches = 0;

  private checkCycles(gen: Generation, ids: readonly string[], issue: Issue): void {
    this.cycleSearches += 1;
    const onBranch = 2 * this.cycleSearches - 1;
    const done = onBranch + 1;
    const stack: Def[] = [];
    const names: string[] = [];
    const next: number[] = [];
    for (const start of ids) {
      const first = gen.defs.get(start);
      if (first === undefined || first.mark >= onBranch) continue;
      first.mark = onBranch;
      stack.push(first);
      names.push(start);
      next.push(0);
      while (stack.length > 0) {
        const top = stack.length - 1;
        const refs = stack[top]!.refs;
        const k = next[top]!;
        if (k < refs.length) {
          next[top] = k + 1;
          const child = refs[k]!.id;
          const def = gen.defs.get(child);
          if (def === undefined || def.mark === done) continue;
          if (def.mark === onBranch) {
            issue('A2UI_S2C_CYCLE', `components form a cycle: ${[...names.slice(names.indexOf(child)), child].join(' → ')}`, ['components']);
            return;
          }
          def.mark = onBranch;
          stack.push(def);
          names.push(child);
          next.push(0);
        } else {
          stack.pop()!.mark = done;
          names.pop();
          next.pop();
        }
      }
    }
  }

  finish(): Violation[] {
    for (const [surfaceId, gens] of this.surfaces) for (const gen of gens) this.finishGeneration(surfaceId, gen);
    return this.violations.sort((a, b) => a.messageIndex - b.messageIndex);
  }

  private finishGeneration(surfaceId: string, gen: Generation): void {
    const report = (code: ErrorCode, index: number, detail: string, path: Path, componentId?: string): Violation =>
      this.record(code, index, detail, path, surfaceId, componentId);
    const dangling: Violation[] = [];
    if (gen.idsKnown) {
      for (const [id, def] of gen.defs) {
        // Indexed: most refs lists are the one shared frozen empty list, which for-of handles slowly.
        for (let r = 0; r < def.refs.length; r += 1) {
          const ref = def.refs[r]!;
          if (gen.defs.has(ref.id) || gen.prior?.has(ref.id) === true) continue;
          dangling.push(report(ref.template ? 'A2UI_S2C_TEMPLATE_DANGLING' : 'A2UI_S2C_DANGLING_CHILD', def.index,
            `component "${id}" refers to "${ref.id}", which the client never gets`, ['updateComponents', 'components', def.j, ...refPath(ref)]));
        }
      }
    }
    if (!gen.created) return;
    if (gen.live && !gen.defs.has(ROOT)) {
      report('A2UI_S2C_ROOT_MISSING', gen.first, `surface "${surfaceId}" never gets a component "${ROOT}", so nothing renders`, ['createSurface']);
      return;
    }
    const cut: CutOff[] = [];
    for (const [id, def] of gen.defs) {
      if (!gen.reached.has(id)) {
        const error = makeError('A2UI_S2C_UNREACHABLE_COMPONENT', `component "${id}" is never reachable from "${ROOT}"`,
          { pointer: formatPointer([String(def.index), 'updateComponents', 'components']) });
        cut.push({ id, kids: def.refs.map((r) => r.id), finding: { ...error, messageIndex: def.index, surfaceId, componentId: id } });
      }
    }
    // Folded into the finding that explains them (follow-ons.ts): the generation's dangling references.
    for (const v of foldUnreachable(cut, dangling)) this.violations.push(v);
    const depth = gen.depth ?? treeDepth(gen);
    if (depth.depth > this.maxDepth) {
      report('A2UI_S2C_NESTING_TOO_DEEP', depth.index, `the tree is ${depth.depth} levels deep, more than ${this.maxDepth}`, ['updateComponents', 'components']);
    }
    this.checkTemplates(gen, report);
  }

  /** A list template whose absolute data path never holds an array stays empty (warning). */
  private checkTemplates(gen: Generation, report: (code: ErrorCode, index: number, detail: string, path: Path) => void): void {
    for (const def of gen.defs.values()) {
      const path = def.templatePath;
      if (path === undefined || !path.startsWith('/')) continue;
      if (!Array.isArray(getData(gen.data, path))) {
        report('A2UI_S2C_TEMPLATE_UNBOUND', def.index, `template data ${path} holds no list; the list stays empty`,
          ['updateComponents', 'components', def.j, 'children', 'path']);
      }
    }
  }
}

type Issue = (code: ErrorCode, detail: string, path: Path, componentId?: string) => void;

interface TreeDepth { depth: number; index: number }

/** The deepest chain from the root (root = 1) over the final definitions; cycles are reported elsewhere. */
function treeDepth(gen: Generation): TreeDepth {
  let best = 0;
  let index = gen.first;
  // Two parallel stacks instead of a tuple per node: this walks every component of every batch.
  const ids: string[] = [ROOT];
  const depths: number[] = [1];
  const seen = new Set<string>();
  while (ids.length > 0) {
    const id = ids.pop()!;
    const depth = depths.pop()!;
    const def = gen.defs.get(id);
    if (def === undefined || seen.has(id)) continue;
    seen.add(id);
    if (depth > best) { best = depth; index = def.index; }
    for (let i = 0; i < def.refs.length; i += 1) { ids.push(def.refs[i]!.id); depths.push(depth + 1); }
  }
  return { depth: best, index };
}

/**
 * Path of the first prototype name used as a key anywhere in `value` (depth-first, last pushed
 * first). Every object of the data model is visited: nodes are kept in flat arrays (value,
 * parent node, key) and a path is built only for the finding.
 */
function forbiddenKey(value: unknown, path: readonly (string | number)[]): (string | number)[] | undefined {
  const values: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [''];
  const stack: number[] = [0];
  const pathTo = (node: number, last: string): (string | number)[] => {
    const tail: (string | number)[] = [last];
    for (let n = node; n > 0; n = parents[n]!) tail.push(keys[n]!);
    return [...path, ...tail.reverse()];
  };
  const visit = (child: unknown, parent: number, key: string | number): void => {
    stack.push(values.length);
    values.push(child);
    parents.push(parent);
    keys.push(key);
  };
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = values[node];
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) { for (let i = 0; i < v.length; i += 1) if (typeof v[i] === 'object') visit(v[i], node, i); continue; }
    // Keys and values side by side (same order): a data model's large objects are dictionaries,
    // where a lookup per key costs more than reading the values out at once.
    const own = Object.keys(v);
    const children = Object.values(v);
    for (let i = 0; i < own.length; i += 1) {
      const k = own[i]!;
      // Every prototype name is 9 or 11 characters long: the set is asked only about those.
      if ((k.length === 9 || k.length === 11) && FORBIDDEN_SEGMENTS.has(k)) return pathTo(node, k);
      const child = children[i];
      if (typeof child === 'object' && child !== null) visit(child, node, k);
    }
  }
  return undefined;
}

export function validateA2uiV09Messages(messages: readonly unknown[], options: ValidateA2uiV09Options = {}): Violation[] {
  const validator = new StreamValidator(options);
  messages.forEach((m, i) => validator.message(m, i));
  return validator.finish();
}

/** The component types a stream leaves on each surface (for `priorTypes` of the next batch). */
export function collectA2uiV09ComponentTypes(
  messages: readonly unknown[], into: Map<string, Map<string, string>> = new Map(),
): Map<string, Map<string, string>> {
  for (const m of messages) {
    if (!isRecord(m)) continue;
    if (isRecord(m.deleteSurface) && typeof m.deleteSurface.surfaceId === 'string') into.delete(m.deleteSurface.surfaceId);
    const uc = m.updateComponents;
    if (!isRecord(uc) || typeof uc.surfaceId !== 'string' || !Array.isArray(uc.components)) continue;
    let types = into.get(uc.surfaceId);
    if (!types) { types = new Map(); into.set(uc.surfaceId, types); }
    for (const c of uc.components) if (isRecord(c) && typeof c.id === 'string' && typeof c.component === 'string') types.set(c.id, c.component);
  }
  return into;
}
