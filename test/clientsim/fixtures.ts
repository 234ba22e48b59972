import type { Violation } from '../../src/clientsim/index.ts';

// Tiny message builders for hand-written streams on surface `s`.

export const S = 's';
export type Msg = Record<string, unknown>;
export type Comp = { id: string; component: Record<string, unknown>; weight?: number };

export const su = (...components: Comp[]): Msg => ({ surfaceUpdate: { surfaceId: S, components } });
export const dm = (contents: unknown[], path?: string): Msg => ({ dataModelUpdate: path === undefined ? { surfaceId: S, contents } : { surfaceId: S, path, contents } });
export const br = (root: string, extra: Record<string, unknown> = {}): Msg => ({ beginRendering: { surfaceId: S, root, ...extra } });
export const del = (surfaceId = S): Msg => ({ deleteSurface: { surfaceId } });

export const text = (id: string, literalString: string): Comp => ({ id, component: { Text: { text: { literalString } } } });
export const boundText = (id: string, path: string): Comp => ({ id, component: { Text: { text: { path } } } });
export const column = (id: string, ...children: string[]): Comp => ({ id, component: { Column: { children: { explicitList: children } } } });
export const card = (id: string, child: string): Comp => ({ id, component: { Card: { child } } });
export const list = (id: string, componentId: string, dataBinding: string): Comp => ({ id, component: { List: { children: { template: { componentId, dataBinding } } } } });
export const button = (id: string, child: string, name: string, context?: unknown[]): Comp =>
  ({ id, component: { Button: { child, action: context === undefined ? { name } : { name, context } } } });

export const codes = (violations: readonly Violation[]): string[] => violations.map((v) => v.code);
export const errorCodes = (violations: readonly Violation[]): string[] => codes(violations.filter((v) => v.severity === 'error'));
