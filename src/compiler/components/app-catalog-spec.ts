import type { z } from 'zod';
import type { ComponentDefinition, ComponentRegistry } from '../../app-kit/component.ts';
import type { ValidateOptionsBase, Violation } from '../a2ui-shared/index.ts';

/** An app catalogue as a version's validator knows it (AppCatalogV08, AppCatalogV09: which wire form each schema checks). */
interface AppCatalogSpec {
  catalogId: string;
  components: ReadonlyMap<string, z.ZodType>;
}

type SpecOf = (registry: ComponentRegistry, catalogId: string) => AppCatalogSpec;

/**
 * A version's `appCatalogSpec(registry, catalogId)`: the components' wire schemas (the ones
 * Surfacer builds in, `builtIn`, and the app's), built once per
 * registry and catalogue id (a registry is fixed once the app is composed, and every batch sent
 * to a client of the app catalogue is validated against them).
 */
export function cachedAppCatalogSpec(
  wireSchema: (definition: ComponentDefinition) => z.ZodType,
  builtIn: ReadonlyMap<string, z.ZodType> = new Map(),
): SpecOf {
  const specs = new WeakMap<ComponentRegistry, Map<string, AppCatalogSpec>>();
  return (registry, catalogId) => {
    let byId = specs.get(registry);
    if (byId === undefined) specs.set(registry, byId = new Map());
    let spec = byId.get(catalogId);
    if (spec === undefined) {
      spec = { catalogId, components: new Map([...builtIn, ...registry.list().map((d): [string, z.ZodType] => [d.name, wireSchema(d)])]) };
      byId.set(catalogId, spec);
    }
    return spec;
  };
}

/**
 * A version's target `validate`: a batch compiled for the app catalogue (`components.catalog ===
 * 'app'`) is validated as its client sees it: the app's types checked against their schemas, and
 * allowed wherever the version's standard ones are restricted (the client holds them).
 */
export function validateWithAppCatalog(
  validate: (messages: readonly unknown[], options: ValidateOptionsBase & { appCatalog?: AppCatalogSpec }) => Violation[],
  specOf: SpecOf,
): (messages: readonly unknown[], options: ValidateOptionsBase) => Violation[] {
  return (messages, options) => {
    const components = options.components;
    if (components?.catalog !== 'app') return validate(messages, options);
    const appCatalog = specOf(components.registry, components.catalogId);
    const allowedComponents = options.allowedComponents === undefined ? undefined
      : [...options.allowedComponents, ...appCatalog.components.keys()];
    return validate(messages, {
      ...options, appCatalog, ...(allowedComponents === undefined ? {} : { allowedComponents }),
    });
  };
}
