import type { CatalogChoice } from '../hosting/index.ts';
import {
  a2uiWire, encodeA2uiSurfaceId, type A2uiCompileOptions, type A2uiWire, type CompileResult, type SurfaceBatch,
} from '../compiler/index.ts';
import { silentLogger, StoreUnavailableError, type ConversationEvent, type ConversationService, type Logger } from '../conversation/index.ts';
import type { SurfacerMetrics } from '../telemetry/metrics.ts';
import type { ConversationIr } from '../ui-ir/index.ts';
import { parseEventId, streamNameOf } from './event-id.ts';
import type { A2uiHub } from './hub.ts';
import { surfaceIdOf, type A2uiServerMessage } from './messages.ts';

/*
 * Conversation service → A2UI hub, for one wire version (`wire`: v0.8, v0.9, …; a host keeps one
 * set of bridges and one hub per version that has clients, so nothing is compiled for a version
 * nobody watches). One bridge per conversation that someone watches: it subscribes to the
 * service, compiles each change against the IR it published last (wire.compileUpdate(lastIr,
 * next)) and publishes one hub batch per surface.
 *
 * Why the snapshot cannot race the stream: service events are delivered synchronously and
 * published synchronously, so "the hub's sequence number" and "the bridge's last IR" always
 * move together within one tick. A stream takes its hub checkpoint and its snapshot (compiled
 * from that same last IR) in one synchronous step: every batch after the checkpoint is a diff
 * from exactly the snapshot's IR.
 *
 * A bridge that nobody watched for `idleMs` is dropped together with its hub channel
 * (`hub.forget`). Stream names are the same on every instance and after a drop (event-id.ts), so
 * a client resuming later is caught up from the IR at its version when that is still kept
 * (service.irAt), and re-initialised otherwise; never resumed past changes it did not get.
 */

export interface BridgeOptions {
  service: Pick<ConversationService, 'get' | 'subscribe' | 'resetSurfaceEpoch' | 'irAt'>;
  hub: A2uiHub;
  /** Fan-out latency (src/telemetry); absent: none recorded. */
  metrics?: SurfacerMetrics;
  /** The A2UI wire version these bridges compile to. Default v0.8. */
  wire?: A2uiWire;
  /** The catalogue their clients have (it names the stream, event-id.ts). Default basic. */
  catalog?: CatalogChoice;
  /** Compiler options for every batch and snapshot (not `reinit`/`priorTypes`: the bridge owns them). */
  compile?: Omit<A2uiCompileOptions, 'reinit' | 'priorTypes'>;
  logger?: Logger;
  /** A bridge without stream subscribers is kept this long, so short disconnects resume. Default 120 000. */
  idleMs?: number;
  /** Bridges without subscribers beyond this many are dropped, least recently used first. Default 1 000. */
  maxIdleBridges?: number;
  /** Conversations whose emitted surface ids are remembered after their bridge is gone. Default 10 000. */
  rememberedConversations?: number;
  now?: () => number;
  /** Sweep idle bridges on a timer (default true; tests call `sweep()`). */
  autoSweep?: boolean;
  /** The compiler (tests inject failures); default the wire's. */
  compiler?: { update: A2uiWire['compileUpdate']; init: A2uiWire['compileConversation'] };
}

export interface A2uiBridges {
  /**
   * Makes sure `cid` is bridged, its IR loaded and current, and its hub channel open. With the
   * Last-Event-ID of a client the hub's buffer cannot resume, also loads the IR that client holds,
   * so `catchUp` can send it just what changed since. False: no such conversation. Rejects with
   * StoreUnavailableError while the shared store cannot be reached.
   */
  prepare(cid: string, lastEventId?: string): Promise<boolean>;
  /** Re-opens the hub channel of a prepared bridge (it may have been evicted meanwhile). Synchronous. */
  open(cid: string): void;
  /**
   * What a client holding everything up to version `since` needs to reach the IR published last:
   * the update from that version's IR (loaded by prepare). Undefined when it cannot be had (the
   * caller sends a full init). Synchronous, like `snapshot`.
   */
  catchUp(cid: string, since: number): readonly A2uiServerMessage[] | undefined;
  /**
   * Full init of every live surface of the IR published last (cached per IR). Synchronous on
   * purpose (see above). Throws if `cid` is not prepared.
   */
  snapshot(cid: string): readonly A2uiServerMessage[];
  /** A2UI surface ids a client of `cid` may still hold: every id emitted, and every IR surface's current one. */
  surfaceIds(cid: string): string[];
  /**
   * What a client holding IR surface `surfaceId` at (`epoch`, `rev`) needs to reach the IR
   * published last, when the last change published was exactly one step of that surface from
   * that rev and touched nothing else: the update batch already compiled for the stream, with
   * its A2UI surface id. Undefined otherwise (the caller sends the surface whole). Synchronous.
   */
  /** A2UI ids of the live surfaces of the IR published last, without compiling anything. Throws if `cid` is not prepared. */
  liveSurfaceIds(cid: string): string[];
  lastStepOf(cid: string, surfaceId: string, epoch: number, rev: number): { a2uiSurfaceId: string; messages: readonly A2uiServerMessage[]; rev: number } | undefined;
  /** IR id, epoch and rev of every live surface of the IR published last (what `snapshot` shows). Throws if `cid` is not prepared. */
  liveSurfaceStates(cid: string): Array<{ id: string; epoch: number; rev: number }>;
  /** Drops bridges idle for longer than `idleMs` (and the oldest idle ones beyond the cap). */
  sweep(): void;
  /** Unsubscribes everything; later prepares fail. */
  close(): void;
  readonly size: number;
}

interface Bridge {
  readonly cid: string;
  /** The conversation's event-id stream name (event-id.ts), set once loaded. */
  stream: string;
  /** An older IR a resuming client holds, loaded by prepare for catchUp. */
  base?: { version: number; ir: ConversationIr };
  /** The IR whose compilation every subscriber holds (undefined until loaded). */
  ir: ConversationIr | undefined;
  version: number;
  /** Events that arrived while the IR was loading. */
  pending: ConversationEvent[];
  ready: Promise<boolean>;
  unsubscribe: () => void;
  lastUsed: number;
  snapshotOf: ConversationIr | undefined;
  snapshot: readonly A2uiServerMessage[];
  /** Surfaces the clients hold as a fallback: re-initialised with the next batch. */
  fallbacks: Set<string>;
  /** `<surface>@<epoch>` whose epoch reset was already asked for (never asked twice). */
  resets: Set<string>;
  /** The change published last (from `prev` to `ir`), while it is the last one: lastStepOf reuses its batches. */
  last?: { prev: ConversationIr; batches: readonly SurfaceBatch<unknown>[]; clean: boolean };
}

const MAX_IDS_PER_CONVERSATION = 64;
const MAX_RESET_KEYS = 64;

export function createA2uiBridges(options: BridgeOptions): A2uiBridges {
  const { service, hub } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const idleMs = options.idleMs ?? 120_000;
  const maxIdle = options.maxIdleBridges ?? 1_000;
  const maxRemembered = options.rememberedConversations ?? 10_000;
  const compileOptions = options.compile ?? {};
  const wire = options.wire ?? a2uiWire('0.8');
  const compiler = options.compiler ?? { update: wire.compileUpdate, init: wire.compileConversation };
  const bridges = new Map<string, Bridge>();
  /** A2UI surface ids emitted per conversation (insertion order = recency), outliving bridges. */
  const emitted = new Map<string, Set<string>>();
  let closed = false;

  const timer = options.autoSweep === false ? undefined : setInterval(sweep, Math.max(1_000, Math.min(idleMs, 60_000) / 2));
  timer?.unref();

  function remember(cid: string, ids: Iterable<string>): void {
    let set = emitted.get(cid);
    if (set === undefined) {
      set = new Set();
    } else {
      emitted.delete(cid);
    }
    emitted.set(cid, set);
    for (const id of ids) {
      set.delete(id);
      set.add(id);
      if (set.size > MAX_IDS_PER_CONVERSATION) set.delete(set.values().next().value as string);
    }
    while (emitted.size > maxRemembered) emitted.delete(emitted.keys().next().value as string);
  }

  function idsOf(messages: readonly A2uiServerMessage[]): string[] {
    const ids: string[] = [];
    for (const m of messages) {
      const id = surfaceIdOf(m);
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  /** All surface batches of one log version, as the hub publishes them: one version, one id sequence. */
  function publishVersion(b: Bridge, version: number, batches: readonly SurfaceBatch<unknown>[]): void {
    const messages: A2uiServerMessage[] = [];
    const lines: string[] = [];
    for (const batch of batches) {
      if (batch.kind === 'fallback') b.fallbacks.add(batch.surfaceId);
      if (batch.errors.length > 0) {
        logger.warn('A2UI batch recovered', { cid: b.cid, surface: batch.a2uiSurfaceId, recovery: batch.recovery, codes: batch.errors.map((e) => e.code) });
      }
      messages.push(...(batch.messages as A2uiServerMessage[]));
      lines.push(...batch.lines);
    }
    remember(b.cid, idsOf(messages));
    hub.publish(b.cid, version, messages, lines);
  }

  function requestReset(b: Bridge, surfaceId: string, ir: ConversationIr): void {
    const surface = ir.surfaces.find((s) => s.id === surfaceId);
    const key = `${surfaceId}@${surface?.epoch ?? '?'}`;
    // An init right after a reset cannot ask again (no prior types); if it did, stop here
    // rather than rotate epochs in a loop.
    if (b.resets.has(key)) {
      logger.error('A2UI compiler asked twice for an epoch reset of the same surface epoch; not resetting again', { cid: b.cid, surfaceId });
      return;
    }
    b.resets.add(key);
    if (b.resets.size > MAX_RESET_KEYS) b.resets.delete(b.resets.values().next().value as string);
    // Every instance following the conversation compiles the same change and asks too: the
    // reset happens once, while the surface is still at the epoch that failed.
    const ifEpoch = surface === undefined ? {} : { ifEpoch: surface.epoch };
    service.resetSurfaceEpoch(b.cid, surfaceId, { reason: 'a2ui_compiler_epoch_reset', origin: 'a2ui', ...ifEpoch }).then(
      (result) => { if (!result.ok) logger.warn('A2UI epoch reset failed', { cid: b.cid, surfaceId, code: result.error.code }); },
      (error: unknown) => logger.error('A2UI epoch reset threw', { cid: b.cid, surfaceId, error }),
    );
  }

  function publishChange(b: Bridge, next: ConversationIr, version: number): void {
    const startedAt = options.metrics ? performance.now() : 0;
    published(b, next, version);
    // Compiled, framed once and handed to every subscriber of this instance (their sockets drain after).
    options.metrics?.fanout((performance.now() - startedAt) / 1000, wire.version);
  }

  function published(b: Bridge, next: ConversationIr, version: number): void {
    const prev = b.ir!;
    const reinit = [...b.fallbacks];
    b.last = undefined;
    b.ir = next;
    b.version = version;
    b.fallbacks.clear();
    let result: CompileResult<unknown> | undefined;
    try {
      result = compiler.update(prev, next, reinit.length > 0 ? { ...compileOptions, reinit } : compileOptions);
    } catch (error) {
      result = undefined;
      logger.error('A2UI update compilation threw', { cid: b.cid, error });
    }
    if (result === undefined || !result.ok) {
      // Nothing consistent to send: every client re-initialises from a fresh snapshot.
      if (result !== undefined) logger.error('A2UI update failed (strict)', { cid: b.cid, codes: result.errors.map((e) => e.code) });
      hub.forget(b.cid);
      hub.open(b.cid, b.stream, version);
      return;
    }
    publishVersion(b, version, result.batches);
    b.last = { prev, batches: result.batches, clean: result.epochResets.length === 0 && reinit.length === 0 };
    for (const surfaceId of result.epochResets) requestReset(b, surfaceId, next);
  }

  function onEvent(b: Bridge, event: ConversationEvent): void {
    if (b.ir === undefined) {
      b.pending.push(event);
      return;
    }
    if (event.version <= b.version) {
      if (event.rewritten === true) rewind(b, event.next, event.version);
      return;
    }
    publishChange(b, event.next, event.version);
  }

  /**
   * The log lost entries this bridge had published (conversation/types.ts `rewritten`), and its
   * version is back at or below what clients were sent: they start again from the log as it is,
   * on a stream name of its own (the same on every instance that saw the loss), so no id of the
   * lost entries resumes and every client re-initialises.
   */
  function rewind(b: Bridge, ir: ConversationIr, version: number): void {
    b.ir = ir;
    b.version = version;
    b.base = undefined;
    b.last = undefined;
    b.snapshotOf = undefined;
    b.fallbacks.clear();
    b.stream = `${b.stream.replace(/r\d+$/, '')}r${version}`;
    hub.forget(b.cid);
    hub.open(b.cid, b.stream, version);
  }

  function dispose(b: Bridge): void {
    b.unsubscribe();
    if (bridges.get(b.cid) === b) bridges.delete(b.cid);
    if (b.ir !== undefined) remember(b.cid, currentIds(b.ir));
    hub.forget(b.cid);
  }

  function currentIds(ir: ConversationIr): string[] {
    const ids: string[] = [];
    for (const s of ir.surfaces) {
      try {
        ids.push(encodeA2uiSurfaceId(s.id, s.epoch));
      } catch {
        // not encodable: never emitted either
      }
    }
    return ids;
  }

  function create(cid: string): Bridge {
    const b: Bridge = {
      cid, stream: '', ir: undefined, version: -1, pending: [], ready: Promise.resolve(false), unsubscribe: () => {},
      lastUsed: now(), snapshotOf: undefined, snapshot: [], fallbacks: new Set(), resets: new Set(),
    };
    // Subscribe before loading: an event that lands while the IR loads is kept and replayed
    // if it is newer than the loaded version.
    b.unsubscribe = service.subscribe(cid, (event) => onEvent(b, event));
    b.ready = service.get(cid).then(
      (conversation) => {
        if (conversation === undefined || bridges.get(cid) !== b) {
          if (bridges.get(cid) === b) dispose(b);
          return false;
        }
        b.ir = conversation.ir;
        b.version = conversation.version;
        b.stream = streamNameOf(cid, conversation.createdAt, wire.version, options.catalog);
        hub.open(cid, b.stream, b.version);
        const pending = b.pending;
        b.pending = [];
        for (const event of pending) onEvent(b, event);
        return true;
      },
      (error: unknown) => {
        if (bridges.get(cid) === b) dispose(b);
        // The shared store is away: no failure of the bridge's, and no missing conversation
        // either. The stream request answers 503 with a retry hint; the next one loads again.
        if (error instanceof StoreUnavailableError) throw error;
        logger.error('A2UI bridge could not load the conversation', { cid, error });
        return false;
      },
    );
    bridges.set(cid, b);
    return b;
  }

  function sweep(): void {
    const t = now();
    const idle: Bridge[] = [];
    for (const b of bridges.values()) {
      if (b.ir === undefined) continue;
      if (hub.subscriberCount(b.cid) > 0) b.lastUsed = t;
      else if (t - b.lastUsed >= idleMs) dispose(b);
      else idle.push(b);
    }
    if (idle.length > maxIdle) {
      idle.sort((x, y) => x.lastUsed - y.lastUsed);
      for (const b of idle.slice(0, idle.length - maxIdle)) dispose(b);
    }
  }

  return {
    async prepare(cid, lastEventId) {
      if (closed) return false;
      const existing = bridges.get(cid);
      const b = existing ?? create(cid);
      b.lastUsed = now();
      let ok = await b.ready;
      // A bridge that was already following: fold in what other instances appended just now (its
      // events publish it), so a client that saw a newer version elsewhere finds it here.
      if (ok && existing !== undefined) ok = (await service.get(cid)) !== undefined;
      if (!ok || bridges.get(cid) !== b) return false;
      b.lastUsed = now();
      hub.open(cid, b.stream, b.version);
      const position = lastEventId === undefined ? undefined : parseEventId(lastEventId);
      if (position !== undefined && position.index === undefined && position.stream === b.stream
        && position.version < b.version && hub.needsCatchUp(cid, lastEventId)) {
        const ir = await service.irAt(cid, position.version);
        if (ir !== undefined) b.base = { version: position.version, ir };
      }
      return bridges.get(cid) === b;
    },

    open(cid) {
      const b = bridges.get(cid);
      if (b?.ir === undefined) throw new Error(`A2UI bridge for ${cid} is not prepared`);
      hub.open(cid, b.stream, b.version);
    },

    catchUp(cid, since) {
      const b = bridges.get(cid);
      const base = b?.base;
      if (b?.ir === undefined || base === undefined || base.version !== since) return undefined;
      b.base = undefined;
      try {
        // The client shows a fallback wherever that IR could not be compiled: rebuild those whole.
        const reinit = compiler.init(base.ir, compileOptions).batches.filter((x) => x.kind === 'fallback').map((x) => x.surfaceId);
        const result = compiler.update(base.ir, b.ir, reinit.length > 0 ? { ...compileOptions, reinit } : compileOptions);
        if (!result.ok) return undefined;
        const messages = result.batches.flatMap((batch) => batch.messages as A2uiServerMessage[]);
        remember(cid, idsOf(messages));
        return messages;
      } catch (error) {
        logger.error('A2UI catch-up compilation threw', { cid, error });
        return undefined;
      }
    },

    snapshot(cid) {
      const b = bridges.get(cid);
      if (b?.ir === undefined) throw new Error(`A2UI bridge for ${cid} is not prepared`);
      b.lastUsed = now();
      if (b.snapshotOf !== b.ir) {
        const result = compiler.init(b.ir, compileOptions);
        const messages: A2uiServerMessage[] = [];
        for (const batch of result.batches) {
          // A fresh client gets the fallback too; the next batch re-initialises it for everyone.
          if (batch.kind === 'fallback') b.fallbacks.add(batch.surfaceId);
          messages.push(...(batch.messages as A2uiServerMessage[]));
        }
        if (!result.ok) logger.error('A2UI snapshot failed (strict)', { cid, codes: result.errors.map((e) => e.code) });
        remember(cid, idsOf(messages));
        b.snapshotOf = b.ir;
        b.snapshot = messages;
      }
      return b.snapshot;
    },

    surfaceIds(cid) {
      const ids = new Set(emitted.get(cid) ?? []);
      const ir = bridges.get(cid)?.ir;
      if (ir !== undefined) for (const id of currentIds(ir)) ids.add(id);
      return [...ids];
    },

    liveSurfaceIds(cid) {
      const b = bridges.get(cid);
      if (b?.ir === undefined) throw new Error(`A2UI bridge for ${cid} is not prepared`);
      return currentIds({ ...b.ir, surfaces: b.ir.surfaces.filter((s) => s.lifecycle !== 'deleted') });
    },

    lastStepOf(cid, surfaceId, epoch, rev) {
      const b = bridges.get(cid);
      const last = b?.last;
      if (b?.ir === undefined || last === undefined || !last.clean || last.batches.length !== 1) return undefined;
      const batch = last.batches[0]!;
      if (batch.surfaceId !== surfaceId || batch.epoch !== epoch || batch.kind !== 'update' || batch.errors.length > 0) return undefined;
      // The client held the surface the step started from: same epoch, same rev.
      const before = last.prev.surfaces.find((s) => s.id === surfaceId);
      if (before === undefined || before.epoch !== epoch || before.rev !== rev) return undefined;
      const after = b.ir.surfaces.find((s) => s.id === surfaceId);
      if (after === undefined) return undefined;
      b.lastUsed = now();
      return { a2uiSurfaceId: batch.a2uiSurfaceId, messages: batch.messages as A2uiServerMessage[], rev: after.rev };
    },

    liveSurfaceStates(cid) {
      const b = bridges.get(cid);
      if (b?.ir === undefined) throw new Error(`A2UI bridge for ${cid} is not prepared`);
      return b.ir.surfaces.filter((s) => s.lifecycle !== 'deleted').map((s) => ({ id: s.id, epoch: s.epoch, rev: s.rev }));
    },

    sweep,

    close() {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      for (const b of [...bridges.values()]) {
        b.unsubscribe();
        bridges.delete(b.cid);
      }
    },

    get size() {
      return bridges.size;
    },
  };
}
