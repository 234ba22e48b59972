import { issue } from './codes.ts';
import { childPointer, own, type JsonObject } from './json-util.ts';
import type { DataEntry, Issue } from './types.ts';
import { hasType, pickKeys, requireObject } from './validate-shape.ts';

const ENTRY_KEYS = ['key', 'valueString', 'valueNumber', 'valueBoolean', 'valueMap'] as const;
/** WC zod `createDataValueSchema` default: depth 6 fails. */
const WC_MAX_DEPTH = 5;
/** server_to_client.json: valueMap items hold primitives only. */
const PORTABLE_MAX_DEPTH = 2;

interface DataCheck {
  readonly issues: Issue[];
  deepWarned: boolean;
}

function checkKey(key: string, pointer: string, check: DataCheck, loneDot: boolean): void {
  if (loneDot && key === '.') return;
  if (key === '' || key.includes('.') || key.includes('/') || /\[\d+\]/.test(key)) {
    check.issues.push(issue('CLIENTSIM_DATA_KEY_AMBIGUOUS', `data key ${JSON.stringify(key)} is split into a path by WC`, childPointer(pointer, 'key')));
  }
}

function validateEntry(raw: unknown, pointer: string, depth: number, check: DataCheck, loneDot: boolean): DataEntry {
  const { issues } = check;
  if (!requireObject(raw, pointer, issues, 'data entry')) return { key: '' };
  const entry: JsonObject = pickKeys(raw, ENTRY_KEYS, pointer, issues, true);
  const key = own(entry, 'key');
  if (typeof key !== 'string') issues.push(issue('CLIENTSIM_DATA_ENTRY_INVALID', "data entry needs a string 'key'", pointer));
  else checkKey(key, pointer, check, loneDot);
  const valueKeys = Object.keys(entry).filter((k) => k !== 'key');
  if (valueKeys.length !== 1) {
    issues.push(issue('CLIENTSIM_DATA_ENTRY_INVALID', `data entry must have exactly one value property, found ${valueKeys.length}`, pointer));
    return { key: String(key) };
  }
  const valueKey = valueKeys[0]!;
  const value = own(entry, valueKey);
  const at = childPointer(pointer, valueKey);
  const base = { key: typeof key === 'string' ? key : '' };
  switch (valueKey) {
    case 'valueString':
    case 'valueNumber':
    case 'valueBoolean': {
      const type = valueKey === 'valueString' ? 'string' : valueKey === 'valueNumber' ? 'number' : 'boolean';
      if (!hasType(value, type)) issues.push(issue('CLIENTSIM_DATA_ENTRY_INVALID', `${valueKey} must be a ${type}`, at));
      return { ...base, [valueKey]: value };
    }
    default: {
      if (!Array.isArray(value)) {
        issues.push(issue('CLIENTSIM_DATA_ENTRY_INVALID', 'valueMap must be an array of data entries', at));
        return base;
      }
      if (depth + 1 > WC_MAX_DEPTH) {
        issues.push(issue('CLIENTSIM_DATA_ENTRY_INVALID', `valueMap nested deeper than ${WC_MAX_DEPTH}`, at));
        return base;
      }
      if (depth + 1 > PORTABLE_MAX_DEPTH && value.length > 0 && !check.deepWarned) {
        check.deepWarned = true;
        issues.push(issue('CLIENTSIM_VALUE_MAP_TOO_DEEP', `valueMap nested ${depth + 1} deep; JSON schema and the Python SDK allow ${PORTABLE_MAX_DEPTH}`, at));
      }
      return { ...base, valueMap: value.map((item, i) => validateEntry(item, childPointer(at, i), depth + 1, check, false)) };
    }
  }
}

/** `dataModelUpdate.contents`, checked like WC's zod (strict entries, exactly one value, depth ≤ 5). */
export function validateContents(value: unknown, pointer: string, issues: Issue[]): DataEntry[] {
  if (!Array.isArray(value)) {
    issues.push(issue('CLIENTSIM_FIELD_INVALID', 'contents must be an array', pointer));
    return [];
  }
  const check: DataCheck = { issues, deepWarned: false };
  // A single `.` entry is WC's leaf-set convention (F3), not an ambiguous key.
  const loneDot = value.length === 1;
  return value.map((item, i) => validateEntry(item, childPointer(pointer, i), 1, check, loneDot));
}
