import { z } from 'zod';

/**
 * The common types of A2UI v0.9 (`common_types.json`), as the official processor validates them:
 * a zod 4 rendering of `@a2ui/web_core` 0.11's zod 3 schemas (src/v0_9/schema/common-types.js).
 * The package wins where it and the JSON Schemas disagree; the suites in test/a2ui-v0_9-protocol
 * hold this file to the package's own schemas. Objects the package leaves open stay open
 * (`z.object` strips unknown keys, as zod 3 did); component property sets are strict.
 */
export const DataBinding = z.object({ path: z.string() });

export const FunctionCall = z.object({
  call: z.string(),
  args: z.record(z.string(), z.any()),
  returnType: z.enum(['string', 'number', 'boolean', 'array', 'object', 'any', 'void']).optional(),
});

export const DynamicBoolean = z.union([z.boolean(), DataBinding, FunctionCall]);
export const DynamicString = z.union([z.string(), DataBinding, FunctionCall]);
export const DynamicNumber = z.union([z.number(), DataBinding, FunctionCall]);
export const DynamicStringList = z.union([z.array(z.string()), DataBinding, FunctionCall]);
export const DynamicValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.any()), DataBinding, FunctionCall]);

export const ComponentId = z.string();

/** Children: fixed ids, or a template stamped once per item of the list at `path`. */
export const ChildList = z.union([z.array(ComponentId), z.object({ componentId: ComponentId, path: z.string() })]);

export const Action = z.union([
  z.object({ event: z.object({ name: z.string(), context: z.record(z.string(), DynamicValue).optional() }) }),
  z.object({ functionCall: FunctionCall }),
]);

export const CheckRule = z.object({ condition: DynamicBoolean, message: z.string() });

export const Checkable = {
  checks: z.array(CheckRule).optional(),
  isValid: z.boolean().optional(),
  validationErrors: z.array(z.string()).optional(),
};

export const AccessibilityAttributes = z.object({ label: DynamicString.optional(), description: DynamicString.optional() });

/** Properties every basic component takes. */
export const CommonProps = {
  accessibility: AccessibilityAttributes.optional(),
  weight: z.number().optional(),
};

const RETURN_TYPES: ReadonlySet<unknown> = new Set(['string', 'number', 'boolean', 'array', 'object', 'any', 'void']);

/**
 * `DynamicValue.safeParse(v).success`, without zod: a Button's context holds one DynamicValue per
 * field, and a union parse per entry costs more than everything else the validator does with a
 * large form. Held to the schema (and so to the package) by test/a2ui-v0_9-protocol.
 */
export function isDynamicValue(v: unknown): boolean {
  if (typeof v === 'string' || typeof v === 'boolean' || Array.isArray(v)) return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  if (typeof o.path === 'string') return true;
  return typeof o.call === 'string' && typeof o.args === 'object' && o.args !== null && !Array.isArray(o.args)
    && (o.returnType === undefined || RETURN_TYPES.has(o.returnType));
}
