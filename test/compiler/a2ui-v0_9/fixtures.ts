import type { A2uiV09Component, A2uiV09Message } from '../../../src/compiler/index.ts';

export { FIELDS, ok, only, open, view } from '../a2ui-v0_8/fixtures.ts';

export function componentsOf(messages: readonly A2uiV09Message[]): A2uiV09Component[] {
  return messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components : []));
}

export function find(messages: readonly A2uiV09Message[], id: string): A2uiV09Component {
  const c = componentsOf(messages).find((x) => x.id === id);
  if (!c) throw new Error(`no component ${id}`);
  return c;
}

export function kinds(messages: readonly A2uiV09Message[]): string[] {
  return messages.map((m) => Object.keys(m).find((k) => k !== 'version')!);
}

/** The data model an init batch sends (its single root updateDataModel). */
export function modelOf(messages: readonly A2uiV09Message[]): Record<string, any> {
  const m = messages.find((x) => 'updateDataModel' in x && x.updateDataModel.path === undefined);
  if (!m || !('updateDataModel' in m)) throw new Error('no root updateDataModel');
  return m.updateDataModel.value as Record<string, any>;
}
