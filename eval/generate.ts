import { writeFileSync } from 'node:fs';
import { FIXTURE_DIR, ModelOutputFixture } from './fixture.ts';
import { handwrittenFixtures } from './handwritten.ts';
import { INTENTS } from './intents.ts';
import { STYLES } from './styles.ts';

/**
 * Writes test/fixtures/model-outputs/generated.jsonl (every style that applies to an intent,
 * in the manner of one of the style's families, rotating) and handwritten.jsonl (handwritten.ts).
 * Deterministic; re-run after changing them: `node --import tsx eval/generate.ts`.
 */
export function generateFixtures(): ModelOutputFixture[] {
  const out: ModelOutputFixture[] = [];
  STYLES.forEach((style) => {
    INTENTS.filter((intent) => style.applies?.(intent) ?? true).forEach((intent, n) => {
      const family = style.families[n % style.families.length]!;
      const rendered = style.render(intent, family, n);
      out.push(ModelOutputFixture.parse({
        id: `${style.name}.${intent.key}`, family, category: style.category, user: intent.user, setup: intent.setup, ...rendered,
      }));
    });
  });
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const write = (name: string, fixtures: ModelOutputFixture[]): void => {
    writeFileSync(new URL(name, FIXTURE_DIR), `${fixtures.map((f) => JSON.stringify(ModelOutputFixture.parse(f))).join('\n')}\n`);
    process.stdout.write(`wrote ${fixtures.length} fixtures to ${name}\n`);
  };
  write('generated.jsonl', generateFixtures());
  write('handwritten.jsonl', handwrittenFixtures());
}
