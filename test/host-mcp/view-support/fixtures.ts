import { createDemoActionRegistry, createDemoDirectiveRegistry } from '../../../src/app/index.ts';
import { planFor } from '../../../src/app/offline-planner.ts';
import { a2uiWire } from '../../../src/compiler/index.ts';
import { runDirectives } from '../../../src/directives/index.ts';
import {
  createSeededSource, draw, emptyConversation, findLiveSurface, type ConversationIr,
} from '../../../src/ui-ir/index.ts';

/*
 * What the test's host answers the view with: Surfacer's own A2UI v0.9 for the demo app's
 * character card (the offline planner's answer to "create a character card", compiled by
 * a2uiWire('0.9')), and the same card after a save, in the structuredContent shape of the
 * server's tools (src/host-mcp/view/result.ts).
 */

export const CONVERSATION_ID = 'c-mcp-view';

/** A CallToolResult as the host forwards it. */
export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const source = createSeededSource('mcp-view');
const directives = createDemoDirectiveRegistry();
const actions = createDemoActionRegistry();

/** The conversation with the character card open, as the offline planner opens it. */
export function cardShown(): ConversationIr {
  const ir = emptyConversation(CONVERSATION_ID);
  const run = runDirectives(directives, ir, { directives: planFor('create a character card', ir).directives }, { mode: 'strict', source });
  if (run.errors.length > 0) throw new Error(JSON.stringify(run.errors));
  return run.ir;
}

/** `ir` after a form.submit of the card with `values` (what ingress applies for a click on Save). */
export function cardSaved(ir: ConversationIr, values: Record<string, unknown>): ConversationIr {
  const surface = findLiveSurface(ir, 'main');
  if (surface === undefined) throw new Error('no card');
  const action = actions.resolve('form.submit')!;
  const context = action.contextSchema(surface).parse({ ...values, rev: surface.rev });
  const result = action.handle(ir, surface, context, draw(source));
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result.ir;
}

export interface Compiled {
  messages: Array<Record<string, unknown>>;
  liveSurfaceIds: string[];
}

/** Every live surface of `ir` as A2UI v0.9 (createSurface, updateComponents, updateDataModel). */
export function compiled(ir: ConversationIr): Compiled {
  const result = a2uiWire('0.9').compileConversation(ir);
  if (!result.ok) throw new Error(`compile failed: ${JSON.stringify(result)}`);
  const batches = result.batches as Array<{ a2uiSurfaceId: string; messages: Array<Record<string, unknown>> }>;
  return { messages: batches.flatMap((b) => b.messages), liveSurfaceIds: batches.map((b) => b.a2uiSurfaceId) };
}

/** A Surfacer tool result for `ir` (`extra`: outcome, notice, tellModel). */
export function surfacerResult(ir: ConversationIr, text: string, extra: Record<string, unknown> = {}): ToolResult {
  const { messages, liveSurfaceIds } = compiled(ir);
  return {
    content: [{ type: 'text', text }],
    structuredContent: { conversationId: CONVERSATION_ID, a2ui: { version: 'v0.9', messages }, liveSurfaceIds, ...extra },
  };
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
