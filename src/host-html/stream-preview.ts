import type { TurnStreamEvent } from '../conversation/index.ts';
import { escapeHtml } from './responses.ts';

/**
 * The assistant's words while its answer streams (docs/streaming.md): each text delta is
 * appended to one preview element under the transcript, over the page's event stream (the same
 * `update` event, an out-of-band swap). The preview is emptied once the text is applied (it is
 * then the transcript's own entry) and when the turn ends. Hidden from assistive technology:
 * the transcript entry is what gets announced, once.
 */
export const PREVIEW_ID = 'assistant-preview';

/**
 * One page's preview: the fragment for each stream event, or undefined when the page has
 * nothing to show for it (a turn that previewed nothing sends nothing at its end).
 */
export function createPreview(): (event: TurnStreamEvent) => string | undefined {
  let shown = false;
  return (event) => {
    if (event.kind === 'text') {
      shown = true;
      return `<span hx-swap-oob="beforeend:#${PREVIEW_ID}">${escapeHtml(event.delta)}</span>`;
    }
    if (shown && ((event.kind === 'applied' && event.textApplied) || event.kind === 'end')) {
      shown = false;
      return `<div id="${PREVIEW_ID}" class="assistant-preview" aria-hidden="true" hx-swap-oob="true"></div>`;
    }
    return undefined;
  };
}
