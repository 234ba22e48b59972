import type { Context } from 'hono';
import type { FormFields } from './host.ts';

/**
 * Reads a POST body into name → value(s). Form encodings as browsers send them (files reduce
 * to their names: the IR holds no file bytes), or a JSON object of scalars / scalar arrays for
 * API clients. Anything else is unsupported (undefined).
 */
export async function readFields(c: Context): Promise<FormFields | undefined> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (type === '' && (c.req.header('content-length') ?? '0') === '0') return {};
  if (type.startsWith('application/x-www-form-urlencoded')) {
    // URLSearchParams over the text is several times cheaper than Request.formData().
    const fields: FormFields = Object.create(null) as FormFields;
    for (const [name, value] of new URLSearchParams(await c.req.text())) {
      const prev = fields[name];
      fields[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    return fields;
  }
  if (type.startsWith('multipart/form-data')) {
    let body: Awaited<ReturnType<typeof c.req.parseBody>>;
    // A malformed multipart body is the client's mistake, never a server error.
    try { body = await c.req.parseBody({ all: true }); } catch { return undefined; }
    const fields: FormFields = Object.create(null) as FormFields;
    for (const [name, value] of Object.entries(body)) {
      const values = (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v : v.name));
      fields[name] = values.length === 1 ? values[0]! : values;
    }
    return fields;
  }
  if (type.startsWith('application/json')) {
    let body: unknown;
    try { body = await c.req.json(); } catch { return undefined; }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
    const fields: FormFields = Object.create(null) as FormFields;
    for (const [name, value] of Object.entries(body)) {
      if (Array.isArray(value)) {
        if (!value.every(isScalar)) return undefined;
        fields[name] = value.map(String);
      } else if (isScalar(value)) fields[name] = String(value);
      else return undefined;
    }
    return fields;
  }
  return undefined;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

export function single(fields: FormFields, name: string): string | undefined {
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : undefined;
}
