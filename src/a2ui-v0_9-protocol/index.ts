// The A2UI v0.9 / v0.9.1 wire format as zod schemas: message envelopes both ways and the basic
// catalogue, and how a client applies data updates. One description, used by the v0.9
// compiler's validator, ClientSim v0.9 and ingress.
export {
  BASIC_CATALOG_ID, BASIC_CATALOG_IDS, BASIC_CATALOG_SPEC_ID, BASIC_COMPONENT_SCHEMAS, BASIC_COMPONENT_TYPES, BASIC_FUNCTION_NAMES, CHILD_REFS, ICON_NAMES,
  isBasicComponentType,
} from './catalog.ts';
export type { BasicComponentType, ChildRef } from './catalog.ts';
export {
  Action, ChildList, DataBinding, DynamicBoolean, DynamicNumber, DynamicString, DynamicStringList, DynamicValue, FunctionCall,
  isDynamicValue,
} from './common.ts';
export {
  A2UI_V09_VERSIONS, A2uiV09Version, AnyComponent, ClientAction, ClientError, ClientMessage, CreateSurfaceMessage,
  DeleteSurfaceMessage, SERVER_MESSAGE_KINDS, ServerMessage, UpdateComponentsMessage, UpdateDataModelMessage,
} from './messages.ts';
export type { ServerMessageKind } from './messages.ts';
export { FORBIDDEN_SEGMENTS, getData, segmentsOf, setData } from './data-model.ts';
export type { DataModel, SetResult } from './data-model.ts';
export { compileSchemaPredicate } from './schema-predicate.ts';
export type { SchemaPredicate } from './schema-predicate.ts';
