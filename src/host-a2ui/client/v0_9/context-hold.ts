/// <reference lib="dom" />
import type { ComponentContext } from '@a2ui/web_core/v0_9';

/**
 * An element's hold on the ComponentContext the official surface gives it: the context, and the
 * one subscription to its component's updates. The surface makes a new context on every render
 * of the parent, over the same component: each new one replaces the subscription of the last.
 */
export class ContextHold {
  context: ComponentContext | undefined;
  #off: (() => void) | undefined;

  /** Holds `context` and calls `update` now and on every change of its component (nothing when it is the one held). */
  take(context: ComponentContext, update: () => void): void {
    if (context === this.context) return;
    this.context = context;
    this.#off?.();
    const sub = context.componentModel.onUpdated.subscribe(update);
    this.#off = () => sub.unsubscribe();
    update();
  }

  /** Drops the subscription and the context (the element left the page). */
  release(): void {
    this.#off?.();
    this.#off = undefined;
    this.context = undefined;
  }
}
