import { isRecord } from './catalogue.ts';
import { at, type PathNode } from '../a2ui-shared/index.ts';
import type { Issue } from './validate-props.ts';

/** `Object.prototype.hasOwnProperty`: in a for-in over the same object V8 folds `.call` away (Object.hasOwn it does not). */
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * dataModelUpdate contents: `key` + exactly one `value*`; `valueMap` items primitives only
 * (depth 2, the JSON schema and PY; WC allows 5); keys without `.`, `/`, `~`, `[`, `]`.
 * The lone `.` key (WC's leaf-set convention, §4.4 F3) is accepted only as the single entry of
 * an update at a non-root path, which is the only place WC honours it.
 */
const VALUE_KEYS = ['valueString', 'valueNumber', 'valueBoolean', 'valueMap'] as const;
const BAD_KEY = /[./~[\]]/;

export function checkDataContents(contents: unknown, path: PathNode, issue: Issue, leafSetAllowed: boolean): void {
  if (!Array.isArray(contents)) {
    issue('A2UI_S2C_SCHEMA_INVALID', 'contents must be an array', path);
    return;
  }
  const allowDot = leafSetAllowed && contents.length === 1;
  for (let i = 0; i < contents.length; i += 1) checkEntry(contents[i], at(path, i), issue, 1, allowDot);
}

function checkEntry(entry: unknown, path: PathNode, issue: Issue, depth: number, allowDot: boolean): void {
  if (!isRecord(entry)) {
    issue('A2UI_S2C_DATA_ENTRY_INVALID', 'a data entry must be an object', path);
    return;
  }
  for (const k in entry) {
    if (hasOwn.call(entry, k) && k !== 'key' && !(VALUE_KEYS as readonly string[]).includes(k)) {
      issue('A2UI_S2C_DATA_ENTRY_INVALID', `unknown entry property "${k}"`, at(path, k));
      return;
    }
  }
  const key = entry.key;
  if (typeof key !== 'string') issue('A2UI_S2C_DATA_ENTRY_INVALID', 'entry key must be a string', at(path, 'key'));
  else if (key === '.' ? !allowDot : key === '' || BAD_KEY.test(key)) {
    issue('A2UI_S2C_DATA_KEY_INVALID', `data key ${JSON.stringify(key)} is not addressable (no ".", "/", "~", "[", "]", empty)`, at(path, 'key'));
  }
  let vk: (typeof VALUE_KEYS)[number] | undefined;
  let count = 0;
  for (const k of VALUE_KEYS) if (hasOwn.call(entry, k) && entry[k] !== undefined) { vk = k; count += 1; }
  if (count !== 1 || vk === undefined) {
    issue('A2UI_S2C_DATA_ENTRY_INVALID', `entry needs exactly one of ${VALUE_KEYS.join('/')}, found ${count}`, path);
    return;
  }
  const v = entry[vk];
  const ok = vk === 'valueString' ? typeof v === 'string'
    : vk === 'valueNumber' ? typeof v === 'number' && Number.isFinite(v)
      : vk === 'valueBoolean' ? typeof v === 'boolean'
        : Array.isArray(v);
  if (!ok) {
    issue('A2UI_S2C_DATA_ENTRY_INVALID', `${vk} has the wrong type`, at(path, vk));
    return;
  }
  if (vk === 'valueMap') {
    if (depth >= 2) {
      issue('A2UI_S2C_VALUE_MAP_TOO_DEEP', 'valueMap items may hold primitives only; send deeper maps at deeper paths', at(path, vk));
      return;
    }
    const items = v as unknown[];
    const mp = at(path, vk);
    for (let i = 0; i < items.length; i += 1) checkEntry(items[i], at(mp, i), issue, depth + 1, false);
  }
}
