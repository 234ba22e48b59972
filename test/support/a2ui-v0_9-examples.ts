import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The 43 official v0.9 example streams shipped in @a2ui/web_core (src/v0_9/schemas/catalogs/basic/examples). */
export interface V09Example { name: string; messages: Record<string, unknown>[] }

export function officialExamples(): V09Example[] {
  const require = createRequire(import.meta.url);
  const main = require.resolve('@a2ui/web_core/v0_9');
  const dir = path.join(path.dirname(main), 'schemas', 'catalogs', 'basic', 'examples');
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((file) => {
    const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { messages: Record<string, unknown>[] };
    return { name: file, messages: json.messages };
  });
}
