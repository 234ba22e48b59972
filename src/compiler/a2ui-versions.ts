import type { ConversationIr } from '../ui-ir/index.ts';
import type { CompileOptionsBase, CompileResult, ValidateOptionsBase, Violation } from './a2ui-shared/index.ts';
import {
  collectA2uiComponentTypes, compileA2uiUpdate, compileConversationToA2ui, deleteSurfaceMessage, unguardA2uiValue, validateA2uiMessages,
} from './a2ui-v0_8/index.ts';
import {
  collectA2uiV09ComponentTypes, compileA2uiV09Update, compileConversationToA2uiV09, deleteSurfaceMessageV09, validateA2uiV09Messages,
} from './a2ui-v0_9/index.ts';

/**
 * The A2UI wire versions Surfacer speaks, each behind one interface, so a caller that serves a
 * client picks its version once (the CLI's `--a2ui-version`, a host's `?v=`) instead of
 * branching at every call. `0.9.1` is the v0.9 compiler with `"version": "v0.9.1"` on every
 * message; `0.9` sends `"v0.9"` (what the shipped v0.9 JSON Schemas pin; v0.9.x readers take both).
 */
export const A2UI_VERSIONS = ['0.8', '0.9', '0.9.1'] as const;
export type A2uiVersion = (typeof A2UI_VERSIONS)[number];
export const DEFAULT_A2UI_VERSION: A2uiVersion = '0.8';

export function isA2uiVersion(value: string): value is A2uiVersion {
  return (A2UI_VERSIONS as readonly string[]).includes(value);
}

export interface A2uiWire {
  readonly version: A2uiVersion;
  /** The `version` every message carries and a client message must carry; undefined for v0.8 (none). */
  readonly messageVersion: 'v0.9' | 'v0.9.1' | undefined;
  compileConversation(ir: ConversationIr, options?: CompileOptionsBase): CompileResult<unknown>;
  compileUpdate(prevIr: ConversationIr | undefined, nextIr: ConversationIr, options?: CompileOptionsBase): CompileResult<unknown>;
  validate(messages: readonly unknown[], options?: ValidateOptionsBase): Violation[];
  /** Component types a stream leaves on each surface (the `priorTypes` of the next validation). */
  collectTypes(messages: readonly unknown[], into?: Map<string, Map<string, string>>): Map<string, Map<string, string>>;
  /** The message that removes A2UI surface `a2uiSurfaceId` from a client (a re-initialisation starts with these). */
  deleteSurface(a2uiSurfaceId: string): Readonly<Record<string, unknown>>;
  /**
   * A value a client echoes back from its data model (an action's context), as the IR held it:
   * undoes what this version's compiler did to strings on the way out (v0.8's U+2060 guard; v0.9
   * sends strings as they are).
   */
  readClientValue(value: unknown): unknown;
}

const V08: A2uiWire = {
  version: '0.8',
  compileConversation: compileConversationToA2ui,
  compileUpdate: compileA2uiUpdate,
  validate: validateA2uiMessages,
  collectTypes: collectA2uiComponentTypes,
  messageVersion: undefined,
  deleteSurface: deleteSurfaceMessage,
  readClientValue: unguardA2uiValue,
};

function v09(version: 'v0.9' | 'v0.9.1', name: A2uiVersion): A2uiWire {
  return {
    version: name,
    compileConversation: (ir, options = {}) => compileConversationToA2uiV09(ir, { ...options, version }),
    compileUpdate: (prevIr, nextIr, options = {}) => compileA2uiV09Update(prevIr, nextIr, { ...options, version }),
    validate: validateA2uiV09Messages,
    collectTypes: collectA2uiV09ComponentTypes,
    messageVersion: version,
    deleteSurface: (surfaceId) => deleteSurfaceMessageV09(version, surfaceId),
    readClientValue: (value) => value,
  };
}

const WIRES: Readonly<Record<A2uiVersion, A2uiWire>> = { '0.8': V08, '0.9': v09('v0.9', '0.9'), '0.9.1': v09('v0.9.1', '0.9.1') };

export function a2uiWire(version: A2uiVersion): A2uiWire {
  return WIRES[version];
}

/** The wire whose messages carry `messageVersion` (`undefined`: v0.8, whose messages carry none). */
export function a2uiWireOfMessageVersion(messageVersion: string | undefined): A2uiWire | undefined {
  return Object.values(WIRES).find((wire) => wire.messageVersion === messageVersion);
}
