import type { Block, DataMap, FieldBlock, SurfaceView } from '../index.ts';
import { defaultDraft, fieldBlock } from './fields.ts';
import type { TemplateDefinition } from './templates.ts';

/** The name of the upload block (and its `/draft` and `/committed` key). */
export const UPLOAD_KEY = 'file';

/**
 * A template's form: caption, inputs bound to `/draft/<name>`, then a "Saved" group of value
 * blocks reading `/committed/<name>` so the user sees what was actually stored.
 */
export function templateView(template: TemplateDefinition, title?: string): SurfaceView {
  const saved: Block = {
    kind: 'group', title: 'Saved', layout: 'column',
    blocks: template.fields.map((f) => ({ kind: 'value', label: f.label, path: `/committed/${f.name}` })),
  };
  return {
    template: template.name,
    title: title ?? template.title,
    blocks: [
      { kind: 'text', text: template.description, tone: 'caption' },
      ...template.fields.map(fieldBlock),
      { kind: 'divider' },
      saved,
    ],
    actions: [
      { name: 'form.submit', label: template.submitLabel, role: 'submit', primary: true },
      { name: 'form.cancel', label: 'Discard changes', role: 'cancel', primary: false },
    ],
  };
}

export function templateDraft(template: TemplateDefinition): DataMap {
  return defaultDraft(template.fields);
}

export interface AskSpec {
  title: string;
  prompt: string;
  fields: readonly FieldBlock[];
  submit: string;
  cancel?: string | undefined;
}

/** An ad-hoc clarifier: the question, its inputs, and ask.submit / ask.cancel. */
export function askView(spec: AskSpec): SurfaceView {
  return {
    template: 'ask',
    title: spec.title,
    blocks: [{ kind: 'text', text: spec.prompt, tone: 'body' }, ...spec.fields],
    actions: [
      { name: 'ask.submit', label: spec.submit, role: 'submit', primary: true },
      ...(spec.cancel !== undefined ? [{ name: 'ask.cancel', label: spec.cancel, role: 'cancel' as const, primary: false }] : []),
    ],
  };
}

export interface UploadSpec {
  accept: string[];
  purpose: string;
  label?: string | undefined;
}

/**
 * A file request. The IR records a file name or link, never bytes: hosts with a file control
 * upload the file themselves and submit its name or URL; others show `fallback` and a text box.
 */
export function uploadView(spec: UploadSpec): SurfaceView {
  const label = spec.label ?? 'File';
  return {
    template: 'upload',
    title: spec.label ?? 'Upload a file',
    blocks: [
      { kind: 'text', text: spec.purpose, tone: 'body' },
      {
        kind: 'upload', name: UPLOAD_KEY, label, accept: spec.accept, purpose: spec.purpose,
        fallback: 'File upload is not available here. Paste a link (https://…) or the file name instead.',
      },
      { kind: 'value', label: 'Received', path: `/committed/${UPLOAD_KEY}` },
    ],
    actions: [
      { name: 'upload.submit', label: 'Send', role: 'submit', primary: true },
      { name: 'form.cancel', label: 'Cancel', role: 'cancel', primary: false },
    ],
  };
}
