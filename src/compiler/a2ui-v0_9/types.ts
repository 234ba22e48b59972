import type { BasicComponentType } from '../../a2ui-v0_9-protocol/index.ts';
import type { AppCatalogV09 } from '../components/wire-v09.ts';
import type { CompileOptionsBase, CompileResult, SurfaceBatch, ValidateOptionsBase } from '../a2ui-shared/index.ts';

/** JSON as v0.9 carries it: data values are plain JSON (arrays are arrays). */
export type JsonValue = string | number | boolean | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** The `version` a message carries. v0.9 is what the shipped JSON Schemas pin; v0.9.x readers take both. */
export type A2uiV09Version = 'v0.9' | 'v0.9.1';

/** An app component's type (a ComponentName: never a basic type). */
export type AppComponentType = string & { readonly appComponent?: never };

/** A flat component: id, type, and its properties beside them (a2ui-v0.9.md, server → client). */
export interface A2uiV09Component {
  id: string;
  /** A basic type, or an app component's (compiled for a client holding the app catalogue). */
  component: BasicComponentType | AppComponentType;
  [property: string]: unknown;
}

/** The v0.9 server→client messages. `updateDataModel` without `value` deletes what is at `path`. */
export type A2uiV09Message =
  | { version: A2uiV09Version; createSurface: { surfaceId: string; catalogId: string; theme?: JsonObject; sendDataModel?: boolean } }
  | { version: A2uiV09Version; updateComponents: { surfaceId: string; components: A2uiV09Component[] } }
  | { version: A2uiV09Version; updateDataModel: { surfaceId: string; path?: string; value?: JsonValue } }
  | { version: A2uiV09Version; deleteSurface: { surfaceId: string } };

export type A2uiV09SurfaceBatch = SurfaceBatch<A2uiV09Message>;
export type A2uiV09CompileResult = CompileResult<A2uiV09Message>;

export interface A2uiV09CompileOptions extends CompileOptionsBase {
  /** The `version` every message carries; default `v0.9`. */
  version?: A2uiV09Version;
}

export interface ValidateA2uiV09Options extends ValidateOptionsBase {
  /** Catalogues a createSurface may name; default: the basic catalogue. */
  catalogIds?: readonly string[];
  /**
   * The app catalogue the client holds: a createSurface may name it too, and that surface's
   * components may be the app's, each checked against its schema.
   */
  appCatalog?: AppCatalogV09;
}
