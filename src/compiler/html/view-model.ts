import { createHash } from 'node:crypto';
import {
  getAt, walkBlocks, type ActionSpec, type Block, type ConversationIr, type FieldBlock, type Surface,
} from '../../ui-ir/index.ts';
import { controlOf, formatDisplayValue, formatFieldValue, isChecked, safeUrl, selectedValues, type ControlShape } from './controls.ts';

/** What the HTML compiler needs beyond the IR. Everything is an explicit input: no clock, no randomness. */
export interface HtmlCompileOptions {
  /** Per-session CSRF token rendered into every form (omitted when absent, e.g. for the CLI). */
  csrfToken?: string;
  /** URL prefix of the conversation's routes; default `/c/<conversationId>`. */
  basePath?: string;
}

export interface OptionVm { id: string; value: string; label: string; selected: boolean }

export interface FieldVm {
  kind: 'field';
  id: string;
  name: string;
  label: string;
  shape: ControlShape;
  type?: string;
  value: string;
  checked: boolean;
  required: boolean;
  placeholder?: string;
  help?: string;
  helpId?: string;
  hint?: string;
  hintId?: string;
  describedBy?: string;
  options: OptionVm[];
  min?: number;
  max?: number;
  step?: number | 'any';
  maxLength?: number;
  autocomplete?: string;
}

export type BlockVm =
  | FieldVm
  | { kind: 'heading'; tag: string; text: string }
  | { kind: 'text'; text: string; tone: string }
  | { kind: 'divider' }
  | { kind: 'image'; url?: string; alt: string }
  | { kind: 'value'; label: string; value: string; empty: boolean; path: string }
  | { kind: 'upload'; id: string; name: string; label: string; accept: string; purpose: string; fallback: string; describedBy: string; purposeId: string; fallbackId: string }
  | { kind: 'group'; title?: string; layout: string; blocks: BlockVm[] };

export interface ActionVm { id: string; name: string; label: string; role: string; primary: boolean; noValidate: boolean }

export interface SurfaceVm {
  id: string;
  elementId: string;
  titleId: string;
  alertId: string;
  title: string;
  template: string;
  lifecycle: string;
  epoch: number;
  rev: number;
  closed: boolean;
  expired: boolean;
  toast?: { level: string; text: string };
  form?: {
    action: string;
    multipart: boolean;
    hidden: Array<{ name: string; value: string }>;
  };
  regenerate: { action: string; hidden: Array<{ name: string; value: string }> };
  blocks: BlockVm[];
  actions: ActionVm[];
}

export function basePathOf(ir: ConversationIr, options: HtmlCompileOptions): string {
  return options.basePath ?? `/c/${ir.conversationId}`;
}

/** The per-render idempotency key: same surface state → same key, so a double submit is one. */
export function idempotencyKey(conversationId: string, surface: Pick<Surface, 'id' | 'epoch' | 'rev' | 'nonce'>): string {
  return createHash('sha256')
    .update(`surfacer-idem:v1:${conversationId}:${surface.id}:${surface.epoch}:${surface.rev}:${surface.nonce}`)
    .digest('base64url')
    .slice(0, 32);
}

const TOAST_LEVELS = new Set(['info', 'success', 'warning', 'error']);

export function surfaceViewModel(ir: ConversationIr, surface: Surface, options: HtmlCompileOptions = {}): SurfaceVm {
  const base = basePathOf(ir, options);
  const elementId = `surface-${surface.id}`;
  const csrf = options.csrfToken === undefined ? [] : [{ name: '_csrf', value: options.csrfToken }];
  let hasInputs = false;
  let multipart = false;
  walkBlocks(surface.view.blocks, (b) => {
    if (b.kind === 'field' || b.kind === 'upload') hasInputs = true;
    if (b.kind === 'upload') multipart = true;
  });
  const closed = surface.lifecycle === 'deleted';
  const expired = surface.lifecycle === 'expired';
  const toastValue = getAt(surface.data.ui, ['toast']);
  const vm: SurfaceVm = {
    id: surface.id, elementId, titleId: `${elementId}-title`, alertId: `${elementId}-alert`,
    title: surface.view.title, template: surface.view.template, lifecycle: surface.lifecycle,
    epoch: surface.epoch, rev: surface.rev, closed, expired,
    regenerate: { action: `${base}/surfaces/${surface.id}/regenerate`, hidden: csrf },
    blocks: closed ? [] : surface.view.blocks.map((b, i) => blockViewModel(surface, b, [i])),
    actions: closed || expired ? [] : orderActions(surface.view.actions).map((a) => actionViewModel(elementId, a)),
  };
  if (toastValue && typeof toastValue === 'object' && !Array.isArray(toastValue)) {
    const { level, text } = toastValue as Record<string, unknown>;
    if (typeof text === 'string' && text !== '') {
      vm.toast = { level: typeof level === 'string' && TOAST_LEVELS.has(level) ? level : 'info', text };
    }
  }
  if (!closed && !expired && (hasInputs || surface.view.actions.length > 0)) {
    vm.form = {
      action: `${base}/actions`,
      multipart,
      hidden: [
        { name: '_surface', value: surface.id },
        { name: '_epoch', value: String(surface.epoch) },
        { name: '_nonce', value: surface.nonce },
        { name: '_rev', value: String(surface.rev) },
        { name: '_idem', value: idempotencyKey(ir.conversationId, surface) },
        ...csrf,
      ],
    };
  }
  return vm;
}

/**
 * Primary first, then submit actions, then the rest (stable): the first submit button of a form
 * is what Enter in a text field triggers, and that must never be "cancel".
 */
function orderActions(actions: readonly ActionSpec[]): ActionSpec[] {
  const rank = (a: ActionSpec): number => (a.primary ? 0 : a.role === 'submit' ? 1 : 2);
  return actions.map((a, i) => ({ a, i })).sort((x, y) => rank(x.a) - rank(y.a) || x.i - y.i).map((x) => x.a);
}

/** Buttons keep a stable id so focus survives the outerHTML swap after a submit. */
function actionViewModel(elementId: string, action: ActionSpec): ActionVm {
  return { id: `${elementId}-action-${action.name.replace(/[^a-z0-9_-]/g, '_')}`, name: action.name, label: action.label, role: action.role, primary: action.primary, noValidate: action.role === 'cancel' };
}

function blockViewModel(surface: Surface, block: Block, path: number[]): BlockVm {
  switch (block.kind) {
    case 'field': return fieldViewModel(surface, block);
    case 'heading': return { kind: 'heading', tag: `h${Math.min(6, block.level + 2)}`, text: block.text };
    case 'text': return { kind: 'text', text: block.text, tone: block.tone };
    case 'divider': return { kind: 'divider' };
    case 'image': {
      const url = safeUrl(block.url);
      return url === undefined ? { kind: 'image', alt: block.alt } : { kind: 'image', url, alt: block.alt };
    }
    case 'value': {
      const [namespace, ...keys] = block.path.slice(1).split('/');
      const source = namespace === 'committed' ? surface.data.committed : surface.data.ui;
      const value = formatDisplayValue(getAt(source, keys) as never);
      return { kind: 'value', label: block.label, value, empty: value === '', path: block.path };
    }
    case 'upload': {
      const id = `${fieldIdPrefix(surface)}-${block.name}`;
      return {
        kind: 'upload', id, name: block.name, label: block.label, accept: block.accept.join(','),
        purpose: block.purpose, fallback: block.fallback, purposeId: `${id}-purpose`, fallbackId: `${id}-fallback`,
        describedBy: [block.purpose ? `${id}-purpose` : '', block.fallback ? `${id}-fallback` : ''].filter(Boolean).join(' '),
      };
    }
    case 'group': {
      const vm: BlockVm = { kind: 'group', layout: block.layout, blocks: block.blocks.map((b, i) => blockViewModel(surface, b, [...path, i])) };
      if (block.title !== undefined) vm.title = block.title;
      return vm;
    }
  }
}

function fieldIdPrefix(surface: Surface): string {
  return `f-${surface.id}`;
}

function fieldViewModel(surface: Surface, field: FieldBlock): FieldVm {
  const id = `${fieldIdPrefix(surface)}-${field.name}`;
  const { shape, type } = controlOf(field.control);
  const value = getAt(surface.data.draft, [field.name]) as Parameters<typeof formatFieldValue>[1];
  const selected = selectedValues(value);
  const vm: FieldVm = {
    kind: 'field', id, name: field.name, label: field.label, shape,
    value: formatFieldValue(field, value), checked: isChecked(value), required: field.required,
    options: (field.options ?? []).map((o, i) => ({ id: `${id}-${i}`, value: o.value, label: o.label, selected: selected.has(o.value) })),
  };
  if (type !== undefined) vm.type = type;
  if (field.placeholder !== undefined) vm.placeholder = field.placeholder;
  if (field.min !== undefined) vm.min = field.min;
  if (field.max !== undefined) vm.max = field.max;
  if (field.step !== undefined) vm.step = field.step;
  else if (field.control === 'number') vm.step = 'any';
  if (field.maxLength !== undefined) vm.maxLength = field.maxLength;
  if (field.control === 'secret') vm.autocomplete = 'off';
  if (field.control === 'email') vm.autocomplete = 'email';
  const described: string[] = [];
  if (field.help !== undefined && field.help !== '') {
    vm.help = field.help;
    vm.helpId = `${id}-help`;
    described.push(vm.helpId);
  }
  if (field.control === 'tags' && vm.help === undefined) vm.hint = 'Separate entries with commas.';
  if (field.control === 'slider' && field.min !== undefined && field.max !== undefined) vm.hint = `From ${field.min} to ${field.max}.`;
  if (vm.hint !== undefined) {
    vm.hintId = `${id}-hint`;
    described.push(vm.hintId);
  }
  if (described.length > 0) vm.describedBy = described.join(' ');
  return vm;
}
