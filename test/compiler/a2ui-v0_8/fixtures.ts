import type { A2uiComponent, A2uiMessage, CompileResult, SurfaceBatch } from '../../../src/compiler/index.ts';
import {
  createSeededSource, draw, emptyConversation, openSurface,
  type Block, type ConversationIr, type DataMap, type Draw, type SurfaceView,
} from '../../../src/ui-ir/index.ts';

export const FIELDS: Block[] = [
  { kind: 'field', name: 'name', label: 'Name', control: 'text', required: true },
  { kind: 'field', name: 'bio', label: 'Bio', control: 'textarea', required: false, maxLength: 300 },
  { kind: 'field', name: 'age', label: 'Age', control: 'number', required: false },
  { kind: 'field', name: 'pin', label: 'PIN', control: 'secret', required: false },
  { kind: 'field', name: 'born', label: 'Born', control: 'date', required: false },
  { kind: 'field', name: 'meet', label: 'Meet at', control: 'datetime', required: false },
  { kind: 'field', name: 'wake', label: 'Wake', control: 'time', required: false },
  { kind: 'field', name: 'agree', label: 'I agree', control: 'checkbox', required: false },
  { kind: 'field', name: 'cls', label: 'Class', control: 'select', required: false, options: [{ value: 'mage', label: 'Mage' }, { value: 'rogue', label: 'Rogue' }] },
  { kind: 'field', name: 'skills', label: 'Skills', control: 'multiselect', required: false, options: [{ value: 'stealth', label: 'Stealth' }, { value: 'lore', label: 'Lore' }] },
  { kind: 'field', name: 'level', label: 'Level', control: 'slider', required: false, min: 1, max: 20 },
  { kind: 'field', name: 'tags', label: 'Tags', control: 'tags', required: false },
  { kind: 'field', name: 'site', label: 'Site', control: 'url', required: false },
  { kind: 'field', name: 'mail', label: 'Mail', control: 'email', required: false, help: 'We never share it.' },
];

export function view(blocks: Block[] = FIELDS, extra: Partial<SurfaceView> = {}): SurfaceView {
  return {
    template: 'character.sheet',
    title: 'Character',
    blocks,
    actions: [
      { name: 'form.submit', label: 'Save', role: 'submit', primary: true },
      { name: 'form.cancel', label: 'Cancel', role: 'cancel', primary: false },
    ],
    ...extra,
  };
}

export interface Session {
  draw: () => Draw;
  ir: ConversationIr;
}

export function open(id = 'main', v: SurfaceView = view(), draft?: DataMap, ui?: DataMap): Session {
  const source = createSeededSource('fixtures');
  const next = (): Draw => draw(source);
  return { draw: next, ir: openSurface(emptyConversation('c1'), { id, view: v, draft, ui }, next()) };
}

export function ok<M = A2uiMessage>(result: CompileResult<M>): SurfaceBatch<M>[] {
  if (!result.ok) throw new Error(`compile failed: ${JSON.stringify(result.errors, null, 2)}`);
  return result.batches;
}

export function only<M = A2uiMessage>(result: CompileResult<M>): SurfaceBatch<M> {
  const batches = ok(result);
  if (batches.length !== 1) throw new Error(`expected one batch, got ${batches.length}`);
  return batches[0]!;
}

export function componentsOf(messages: readonly A2uiMessage[]): A2uiComponent[] {
  return messages.flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components : []));
}

export function find(messages: readonly A2uiMessage[], id: string): { type: string; props: Record<string, any> } {
  const c = componentsOf(messages).find((x) => x.id === id);
  if (!c) throw new Error(`no component ${id}`);
  const [type, props] = Object.entries(c.component)[0]!;
  return { type, props: props as Record<string, any> };
}

export function kinds(messages: readonly A2uiMessage[]): string[] {
  return messages.map((m) => Object.keys(m)[0]!);
}
