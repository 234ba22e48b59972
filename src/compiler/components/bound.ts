import { z } from 'zod';
import type { ComponentDefinition } from '../../app-kit/component.ts';
import { DataValueSchema, getAt, type ComponentBlock, type DataValue, type Surface } from '../../ui-ir/index.ts';

/**
 * The bound properties of a component block, read from the surface's data and checked with each
 * property's own zod schema (its optional wrapper removed: the value is there), like a literal
 * property (check.ts) and an item's fields (view.ts). The data is not trusted: `/ui/...` is the
 * model's to write, and an app's `/committed/...` may hold what a user typed. A value that fails
 * its schema (a `javascript:` URL where the schema asks for https, an object where text is
 * expected) or a schema that throws leaves the property out: the template sees it absent, as
 * before the data exists. What passes is the schema's output (defaults, transforms), if it is data.
 */
export function checkedBoundProps(surface: Pick<Surface, 'data'>, block: Pick<ComponentBlock, 'bind'>, definition: ComponentDefinition): Record<string, DataValue> {
  const out: Record<string, DataValue> = {};
  const shape = definition.props.shape as Record<string, z.ZodType | undefined>;
  for (const [key, path] of Object.entries(block.bind)) {
    const field = shape[key];
    if (field === undefined) continue;
    const value = getAt(surface.data, path.slice(1).split('/'));
    if (value === undefined) continue;
    const checked = passes(withoutOptional(field), value);
    if (checked !== undefined) out[key] = checked;
  }
  return out;
}

function passes(schema: z.ZodType, value: unknown): DataValue | undefined {
  try {
    const parsed = schema.safeParse(value);
    if (!parsed.success) return undefined;
    const data = DataValueSchema.safeParse(parsed.data);
    return data.success ? data.data : undefined;
  } catch {
    return undefined;
  }
}

/** `field` without its `.optional()` (bindable properties are optional: defineComponent insists). */
function withoutOptional(field: z.ZodType): z.ZodType {
  return field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
}
