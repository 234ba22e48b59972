import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, STANDARD_COMPONENT_TYPES } from '../../../src/compiler/a2ui-v0_8/catalogue.ts';

/**
 * The hand-written catalogue table equals the resolved JSON schema shipped with the official
 * package (a2ui-v0.8.md §2.3), so the validator's "unknown property" checks are the schema's.
 */
// The package exports only its entry points; the schema file sits next to the v0_8 entry.
const v08Dir = path.dirname(fileURLToPath(import.meta.resolve('@a2ui/web_core/v0_8')));
const schema = JSON.parse(readFileSync(path.join(v08Dir, 'schemas/server_to_client_with_standard_catalog.json'), 'utf8'));
const components: Record<string, any> = schema.properties.surfaceUpdate.properties.components.items.properties.component.properties;

describe('catalogue table vs server_to_client_with_standard_catalog.json', () => {
  it('has the same 18 types', () => {
    expect([...STANDARD_COMPONENT_TYPES].sort()).toEqual(Object.keys(components).sort());
  });

  for (const type of STANDARD_COMPONENT_TYPES) {
    it(`${type}: same properties, required list, enums and bound-value literals`, () => {
      const def = components[type];
      const spec = CATALOGUE[type];
      expect(Object.keys(spec.props).sort()).toEqual(Object.keys(def.properties).sort());
      expect([...spec.required].sort()).toEqual([...(def.required ?? [])].sort());
      for (const [name, prop] of Object.entries(spec.props)) {
        const json = def.properties[name];
        switch (prop.kind) {
          case 'bound':
            expect(Object.keys(json.properties).sort(), name).toEqual(['path', prop.literal].sort());
            if (prop.literalEnum) expect([...prop.literalEnum]).toEqual(json.properties.literalString.enum);
            break;
          case 'enum': expect([...prop.values].sort(), name).toEqual([...json.enum].sort()); break;
          case 'ref': case 'string': expect(json.type, name).toBe('string'); break;
          case 'boolean': case 'number': case 'integer': expect(json.type, name).toBe(prop.kind); break;
          case 'children': expect(Object.keys(json.properties).sort()).toEqual(['explicitList', 'template']); break;
          case 'action': expect(Object.keys(json.properties).sort()).toEqual(['context', 'name']); break;
          case 'tabItems': expect(Object.keys(json.items.properties).sort()).toEqual(['child', 'title']); break;
          case 'options': expect(Object.keys(json.items.properties).sort()).toEqual(['label', 'value']); break;
        }
      }
    });
  }
});
