import type { CompileOptionsBase, CompileResult, SurfaceBatch } from '../a2ui-shared/index.ts';
import type { A2uiComponentType } from './catalogue.ts';

/** The v0.8 server→client messages in the subset the compiler emits (a2ui-v0.8.md §0). */
export type A2uiBoundValue =
  | { path: string }
  | { literalString: string }
  | { literalNumber: number }
  | { literalBoolean: boolean }
  | { literalArray: string[] };

export type A2uiContextValue = { path: string } | { literalString: string } | { literalNumber: number } | { literalBoolean: boolean };

export interface A2uiAction {
  name: string;
  context?: { key: string; value: A2uiContextValue }[];
}

export interface A2uiComponent {
  id: string;
  weight?: number;
  /** One key: a standard type, or an app component's (for a client holding the app catalogue). */
  component: Partial<Record<A2uiComponentType, Record<string, unknown>>> | { [appType: string]: Record<string, unknown> };
}

/** A primitive data entry, or a map of primitive entries (one level only, §4.2). */
export type A2uiDataEntry =
  | { key: string; valueString: string }
  | { key: string; valueNumber: number }
  | { key: string; valueBoolean: boolean }
  | { key: string; valueMap: A2uiDataEntry[] };

export interface A2uiStyles {
  font?: string;
  primaryColor?: string;
}

export type A2uiMessage =
  | { surfaceUpdate: { surfaceId: string; components: A2uiComponent[] } }
  | { dataModelUpdate: { surfaceId: string; path?: string; contents: A2uiDataEntry[] } }
  | { beginRendering: { surfaceId: string; root: string; catalogId?: string; styles?: A2uiStyles } }
  | { deleteSurface: { surfaceId: string } };

export type A2uiSurfaceBatch = SurfaceBatch<A2uiMessage>;
export type A2uiCompileResult = CompileResult<A2uiMessage>;

export interface A2uiCompileOptions extends CompileOptionsBase {
  /** beginRendering styles: only `font` and `primaryColor` (`#RRGGBB`). */
  styles?: A2uiStyles;
}
