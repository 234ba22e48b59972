// ClientSim v0.9: a UI-less A2UI v0.9 client modelled on the official @a2ui/web_core 0.11 v0.9
// MessageProcessor (behind the package's envelope schema) and NodeResolver. Its state equals
// the processor's for every message the processor accepts. Deliberate divergences, each
// commented where it lives and tested in test/clientsim/v0_9/divergences.test.ts:
//  1. A message that fails the package's envelope schema (ServerMessage) is not applied; the
//     bare processor applies some of them (it only looks for the kind key).
//  2. A message the processor would throw on after changing something (a new component without
//     a type, after the components before it) is not applied at all.
//  3. Values are copied in: the processor keeps the objects a message carries and later writes
//     into them; ClientSim's states are immutable.
//  4. A click whose action needs a client function (FunctionCall) is reported, not evaluated.
export { createClientSimV09, driversV09, snapshotAllV09, snapshotSurfaceV09 } from './client-sim.ts';
export type { ClientSimV09, ClientSimV09Options, SurfaceSnapshotV09 } from './client-sim.ts';
export { CLIENTSIM_V09_CODES } from './codes.ts';
export type { ClientSimV09Code } from './codes.ts';
export { canonicalSurfaceV09, hashSurfaceV09 } from './serialize.ts';
export type { HashOptionsV09 } from './serialize.ts';
export { applyMessageV09, endOfStreamV09, initialStateV09 } from './state-machine.ts';
export type { StateOptionsV09, StepResultV09 } from './state-machine.ts';
export { buildTreeV09, PLACEHOLDER, resolveDataPath } from './tree.ts';
export type { TreeNodeV09, TreeV09 } from './tree.ts';
export type { ActionMessageV09, AppCatalogSimV09, ComponentV09, SimStateV09, SurfaceStateV09, ViolationV09 } from './types.ts';
export { clickItemActionV09, clickV09, clientDataModelV09, inputV09, setValueV09 } from './user.ts';
export type { ClickOptionsV09, ClickResultV09, ClientDataModelV09, ItemActionOptionsV09, UserStepV09 } from './user.ts';
