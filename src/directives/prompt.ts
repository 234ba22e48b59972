import { readFileSync } from 'node:fs';
import { renderDirectiveCatalogue } from './catalogue.ts';
import type { DirectiveRegistry } from './registry.ts';

export const CATALOGUE_MARKER = '{{directive_catalogue}}';

/** The versioned system prompt template (prompts/system.v1.md). */
export const SYSTEM_PROMPT_URL = new URL('../../prompts/system.v1.md', import.meta.url);

/** Pure: substitutes the generated catalogue into a template holding the marker exactly once. */
export function renderPromptTemplate(template: string, registry: DirectiveRegistry): string {
  const parts = template.split(CATALOGUE_MARKER);
  if (parts.length !== 2) throw new Error(`prompt template must contain ${CATALOGUE_MARKER} exactly once`);
  return parts[0]! + renderDirectiveCatalogue(registry) + parts[1]!;
}

/** Reads prompts/system.v1.md and fills in the catalogue of `registry`. */
export function renderSystemPrompt(registry: DirectiveRegistry): string {
  return renderPromptTemplate(readFileSync(SYSTEM_PROMPT_URL, 'utf8'), registry);
}
