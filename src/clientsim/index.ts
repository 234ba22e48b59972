// ClientSim: UI-less A2UI clients, v0.8 below and v0.9 in ./v0_9 (its own index lists its
// divergences). The v0.8 one is modelled on the official @a2ui/web_core (WC) 0.11
// v0.8 processor. Its state equals WC's for every message WC accepts. Deliberate divergences,
// each commented where it lives and tested in test/clientsim/divergences.test.ts:
//  1. A message WC would throw on is never applied, even where WC throws after mutating
//     (rendered cycles, a crash on non-string keys in JSON-string data); the surface keeps its
//     last good state and is not created by a rejected message (state-machine.ts).
//  2. Structural cycles and empty-string child references are rejected per surfaceUpdate,
//     even before beginRendering (closure.ts).
//  3. `rendering` is set by beginRendering itself; WC's visibility is "root is truthy".
//  4. CheckBox is validated/stripped (WC's zod key is the typo `Checkbox`) (component-specs.ts).
//  5. Parsed JSON objects are read by own property only (data-model.ts).
//  6. setValue on an unknown surface is a violation; WC creates the surface (user.ts).
//  7. catalogId is kept (not hashed); WC drops it.
//  8. applyAll is per message; WC's processMessages(batch) stops at the first throw.
//  9. Maps in click contexts are sent with their entries unless mapsInContext is 'empty'.
export { createClientSim } from './client-sim.ts';
export type { ClientSim, ClientSimOptions } from './client-sim.ts';
export { applyMessage, endOfStream, initialState, stuckBuffering } from './state-machine.ts';
export type { AppCatalogSim, StepResult } from './state-machine.ts';
export { click, EPOCH_CLOCK, input, setValue } from './user.ts';
export type { ClickOptions, ClickResult, UserStep } from './user.ts';
export { compareHashes, createDrivers, cutAndReconnect, cutAtEveryPoint, replay } from './drivers.ts';
export type { CutOptions, CutPoint, CutReport, DriverKit, Drivers, DriverSim, HashDiff, Reconnect, ReplayResult } from './drivers.ts';
export { canonicalSurface, hashSurface, orderedJson, toPlain } from './serialize.ts';
export type { HashOptions } from './serialize.ts';
export { snapshotSurface } from './snapshot.ts';
export type { SurfaceSnapshot } from './snapshot.ts';
export { buildTree } from './tree.ts';
export type { TreeNode, TreeResult } from './tree.ts';
export { CLIENTSIM_CODES } from './codes.ts';
export type { ClientSimCode, Severity } from './codes.ts';
export type {
  Clock, ComponentInstance, DataMap, DataValue, SimState, Styles, SurfaceState, UserAction, UserActionMessage, Violation,
} from './types.ts';
export {
  applyMessageV09, buildTreeV09, canonicalSurfaceV09, clickV09, CLIENTSIM_V09_CODES, createClientSimV09, driversV09,
  clientDataModelV09, endOfStreamV09, hashSurfaceV09, initialStateV09, inputV09, PLACEHOLDER, resolveDataPath, setValueV09, snapshotAllV09,
  snapshotSurfaceV09,
} from './v0_9/index.ts';
export type {
  ActionMessageV09, ClickOptionsV09, ClickResultV09, ClientDataModelV09, ClientSimV09, ClientSimV09Code, ClientSimV09Options, ComponentV09,
  HashOptionsV09, SimStateV09, StateOptionsV09, StepResultV09, SurfaceSnapshotV09, SurfaceStateV09, TreeNodeV09, TreeV09,
  UserStepV09, ViolationV09,
} from './v0_9/index.ts';
