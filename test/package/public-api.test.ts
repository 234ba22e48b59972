import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as surfacer from '../../src/index.ts';

/*
 * The public API (src/index.ts, the package entry `surfacer`) is enough to build an app: the demo
 * (src/app) and the example apps (examples/) are written against it alone, and the
 * infrastructure names no example.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const ENTRY = join(ROOT, 'src/index.ts');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|js|mjs|eta|md|css)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/**
 * An app's element modules (`<app>/elements/*.ts`, ComponentDefinition.element) are browser code
 * bundled into the A2UI page clients: besides their own folder they may import Lit, and nothing
 * of the server.
 */
const isElementModule = (file: string): boolean => file.split('/').at(-2) === 'elements';
const isLit = (spec: string): boolean => spec === 'lit' || spec.startsWith('lit/');

/** Every module specifier of `file`'s imports and re-exports (static and dynamic). */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s+'([^']+)'/g)]
    .map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** The example clients' folder: scripts that talk to a server over its protocols, not apps built on `surfacer`. */
const CLIENT_EXAMPLES = 'clients';

/** The example apps: every folder under examples/ but the clients'. */
function exampleApps(): string[] {
  return readdirSync(join(ROOT, 'examples'), { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== CLIENT_EXAMPLES).map((e) => e.name);
}

describe('the public API', () => {
  it('src/app imports only its own folder, the public entry, zod (the instance the entry re-exports) and Node built-ins', () => {
    const appDir = join(ROOT, 'src/app');
    const offending: string[] = [];
    for (const file of tsFiles(appDir).filter((f) => f.endsWith('.ts'))) {
      for (const spec of specifiers(file)) {
        if (spec === 'zod' || spec.startsWith('node:')) continue;
        if (isElementModule(file) && isLit(spec)) continue;
        const target = spec.startsWith('.') ? resolve(dirname(file), spec) : undefined;
        if (target !== undefined && (target === ENTRY || target.startsWith(`${appDir}/`))) continue;
        offending.push(`${relative(ROOT, file)}: ${spec}`);
      }
    }
    expect(specifiers(join(appDir, 'index.ts')).length).toBeGreaterThan(0);
    expect(offending).toEqual([]);
  });

  it('examples/ import only `surfacer`, Node built-ins and their own folder', () => {
    const examples = join(ROOT, 'examples');
    const apps = exampleApps().map((name) => join(examples, name));
    expect(apps.length).toBeGreaterThan(0);
    const offending: string[] = [];
    for (const app of apps) {
      for (const file of tsFiles(app).filter((f) => f.endsWith('.ts'))) {
        for (const spec of specifiers(file)) {
          if (spec === 'surfacer' || spec.startsWith('node:')) continue;
          if (isElementModule(file) && isLit(spec)) continue;
          if (spec.startsWith('.') && resolve(dirname(file), spec).startsWith(`${app}/`)) continue;
          offending.push(`${relative(ROOT, file)}: ${spec}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('examples/clients/ (clients of a running server, not apps) import only their protocol\'s official SDK and Node built-ins', () => {
    const scripts = tsFiles(join(ROOT, 'examples', CLIENT_EXAMPLES));
    expect(scripts.map((file) => relative(ROOT, file)).sort())
      .toEqual(['examples/clients/a2a-client.ts', 'examples/clients/agui-client.ts', 'examples/clients/react-a2ui-table.ts']);
    // The React Table is browser code for the official A2UI React renderer: its SDK, and React (the renderer's peer).
    const official = /^node:|^@ag-ui\/client$|^@a2a-js\/sdk(\/client)?$|^@a2ui\/(react|web_core)\/v0_9$|^react$/;
    const offending = scripts.flatMap((file) => specifiers(file)
      .filter((spec) => !official.test(spec))
      .map((spec) => `${relative(ROOT, file)}: ${spec}`));
    expect(offending).toEqual([]);
  });

  it('no file under src/ mentions an example app', () => {
    const examples = exampleApps();
    // Its folder name in any spelling (support-desk, support_desk, "Support Desk", SupportDesk), and the folder itself.
    const patterns = [/examples\//i, ...examples.map((name) => new RegExp(name.split('-').join('[-_ ]?'), 'i'))];
    const mentions = tsFiles(join(ROOT, 'src')).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return patterns.filter((p) => p.test(text)).map((p) => `${relative(ROOT, file)} ~ ${p}`);
    });
    expect(mentions).toEqual([]);
  });

  it('exports what an app, its server, its tests and its deployment need', () => {
    for (const name of [
      'defineApp', 'defineDirective', 'defineAction', 'createDirectiveRegistry', 'createActionRegistry', 'createListDirectives',
      'createSurfacer', 'createMemoryStore', 'createJsonlStore', 'createLocalBackend', 'createRedisBackend',
      'a2uiWire', 'compileConversationToA2ui', 'compileConversationToA2uiV09', 'compileConversationToHtml',
      'createClientSim', 'createClientSimV09', 'makeError', 'openSurface', 'writeListItems', 'renderSystemPrompt',
    ] as const) {
      expect(typeof surfacer[name], name).toBe('function');
    }
    expect(Object.keys(surfacer.ERROR_REGISTRY).length).toBeGreaterThan(10);
    expect(surfacer.A2UI_VERSIONS).toContain('0.9');
    // Schemas are the zod instance the entry re-exports (one zod, one definition).
    expect(surfacer.ConversationIr).toBeInstanceOf(surfacer.z.ZodType);
  });

  it('defineApp refuses two actions of one name, and itemActionNames lists the per-item ones', () => {
    const planner: surfacer.Planner = { name: 'offline', label: 'x', plan: async () => ({ rawText: '{}', provider: 'offline', llmMs: 0 }) };
    const twice = [surfacer.listChooseAction, surfacer.listChooseAction];
    expect(() => surfacer.defineApp({ name: 'x', directives: [], actions: twice, offlinePlanner: planner })).toThrow(/registered twice/);
    expect(surfacer.itemActionNames([...surfacer.LIST_ACTIONS])).toEqual(['list.choose', 'list.remove']);
  });
});
