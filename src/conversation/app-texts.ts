import type { AppDefinition, AppTexts } from './app-definition.ts';

/** AppTexts with every default filled in: what a host shows. */
export interface ResolvedAppTexts {
  readonly description: string | undefined;
  readonly placeholder: string;
  readonly emptyState: string;
  readonly hints: readonly string[];
}

/** Neutral words: an app that sets no texts shows nothing of another app (no demo examples). */
export const DEFAULT_APP_TEXTS = {
  placeholder: 'Type a message',
  emptyState: 'Nothing here yet. Ask for something to get started.',
} as const;

/** The app's texts with the neutral defaults where it set none (blank strings count as none). */
export function resolveAppTexts(app: Pick<AppDefinition, 'texts'>): ResolvedAppTexts {
  const texts: AppTexts = app.texts ?? {};
  const given = (value: string | undefined): string | undefined => (value !== undefined && value.trim() !== '' ? value : undefined);
  return {
    description: given(texts.description),
    placeholder: given(texts.placeholder) ?? DEFAULT_APP_TEXTS.placeholder,
    emptyState: given(texts.emptyState) ?? DEFAULT_APP_TEXTS.emptyState,
    hints: (texts.hints ?? []).filter((h) => given(h) !== undefined),
  };
}
