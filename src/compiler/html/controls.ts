import type { DataValue, FieldBlock, FieldControl } from '../../ui-ir/index.ts';

/** How an IR field control is rendered in HTML. */
export type ControlShape = 'input' | 'textarea' | 'checkbox' | 'select' | 'checkboxes';

const INPUT_TYPES: Record<FieldControl, { shape: ControlShape; type?: string }> = {
  text: { shape: 'input', type: 'text' },
  textarea: { shape: 'textarea' },
  number: { shape: 'input', type: 'number' },
  secret: { shape: 'input', type: 'password' },
  date: { shape: 'input', type: 'date' },
  datetime: { shape: 'input', type: 'datetime-local' },
  time: { shape: 'input', type: 'time' },
  checkbox: { shape: 'checkbox', type: 'checkbox' },
  select: { shape: 'select' },
  // A group of checkboxes: usable on phones and without a modifier key, unlike <select multiple>.
  multiselect: { shape: 'checkboxes' },
  slider: { shape: 'input', type: 'range' },
  tags: { shape: 'input', type: 'text' },
  // Text with the matching keyboard: type=url and type=email would add each browser's own idea of
  // a valid link or address, which is not the one the server and A2UI clients check.
  url: { shape: 'input', type: 'text' },
  email: { shape: 'input', type: 'text' },
};

export function controlOf(control: FieldControl): { shape: ControlShape; type?: string } {
  return INPUT_TYPES[control];
}

/** The value attribute for a draft value, formatted as the control expects. */
export function formatFieldValue(field: FieldBlock, value: DataValue | undefined): string {
  if (value === undefined) return '';
  // Secrets are never echoed back into the page.
  if (field.control === 'secret') return '';
  if (Array.isArray(value)) return value.filter(isScalar).map(String).join(', ');
  if (!isScalar(value)) return '';
  const text = String(value);
  switch (field.control) {
    case 'datetime': {
      const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(text);
      return m ? `${m[1]}T${m[2]}` : text;
    }
    case 'time': return /^\d{2}:\d{2}/.test(text) ? text.slice(0, text.length >= 8 && text[5] === ':' ? 8 : 5) : text;
    case 'date': return /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : text;
    default: return text;
  }
}

export function isChecked(value: DataValue | undefined): boolean {
  return value === true || value === 'true' || value === 'on' || value === 1 || value === '1';
}

/** The selected option values of a select/multiselect. */
export function selectedValues(value: DataValue | undefined): Set<string> {
  if (value === undefined) return new Set();
  if (Array.isArray(value)) return new Set(value.filter(isScalar).map(String));
  if (typeof value === 'string') return new Set(value.split(',').map((v) => v.trim()).filter(Boolean));
  return isScalar(value) ? new Set([String(value)]) : new Set();
}

/** A committed value shown read-only. */
export function formatDisplayValue(value: DataValue | undefined): string {
  if (value === undefined || value === '') return '';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.map((v) => formatDisplayValue(v)).filter(Boolean).join(', ');
  if (typeof value === 'object') {
    return Object.entries(value).map(([k, v]) => `${k}: ${formatDisplayValue(v)}`).join('; ');
  }
  return String(value);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** http/https only, re-checked here although the IR schema already requires it. */
export function safeUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
