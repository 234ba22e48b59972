import type { Types } from '@a2ui/lit/v0_8';

/*
 * Client→server bodies, built the way the Angular v0.8 renderer does it: literals are taken as
 * they are (so `false`, `0` and `""` survive — the Lit samples' truthiness checks drop them),
 * paths are resolved against the button's data context and read from the data model.
 * Pure: the processor, the clock and randomness come in as arguments (tested in Node).
 */

/** The part of the message processor the resolver needs. */
export interface DataReader {
  resolvePath(path: string, dataContextPath?: string): string;
  getData(node: Types.AnyComponentNode, relativePath: string, surfaceId: string): Types.DataValue | null;
}

/** `event.detail` of the renderer's `a2uiaction` event. */
export interface ActionDetail {
  readonly action: Types.Action;
  readonly dataContextPath: string;
  readonly sourceComponentId: string;
  readonly sourceComponent: Types.AnyComponentNode | null;
}

export interface UserActionBody {
  userAction: {
    name: string;
    surfaceId: string;
    sourceComponentId: string;
    timestamp: string;
    context: Record<string, unknown>;
  };
}

export function resolveActionContext(reader: DataReader, surfaceId: string, detail: ActionDetail): Record<string, unknown> {
  const node = detail.sourceComponent ?? ({ id: detail.sourceComponentId, dataContextPath: detail.dataContextPath } as Types.AnyComponentNode);
  const contextPath = detail.dataContextPath ?? node.dataContextPath;
  const entries: [string, unknown][] = [];
  for (const { key, value } of detail.action.context ?? []) {
    if (value.literalBoolean !== undefined) entries.push([key, value.literalBoolean]);
    else if (value.literalNumber !== undefined) entries.push([key, value.literalNumber]);
    else if (value.literalString !== undefined) entries.push([key, value.literalString]);
    else if (typeof value.path === 'string') {
      const path = value.path === '.' || value.path === '' ? '.' : reader.resolvePath(value.path, contextPath);
      entries.push([key, toPlain(reader.getData(node, path, surfaceId))]);
    }
  }
  // fromEntries defines own properties: a key named "__proto__" stays a plain key.
  return Object.fromEntries(entries);
}

export function buildUserAction(reader: DataReader, surfaceId: string, detail: ActionDetail, now: Date): UserActionBody {
  return {
    userAction: {
      name: detail.action.name,
      surfaceId,
      sourceComponentId: detail.sourceComponentId,
      timestamp: now.toISOString(),
      context: resolveActionContext(reader, surfaceId, detail),
    },
  };
}

/** The processor keeps maps as `Map`s (JSON would turn them into `{}`); arrays may hold maps. */
export function toPlain(value: unknown): unknown {
  if (value instanceof Map) {
    return Object.fromEntries([...value].map(([k, v]) => [String(k), toPlain(v)]));
  }
  if (Array.isArray(value)) return value.map(toPlain);
  return value;
}
