/// <reference lib="dom" />
/*
 * The v0.8 A2UI page (its bundle's entry, main.ts or an app's, calls startV08Page). Mounts the official Lit v0.8
 * renderer: one signal-backed processor, theme and markdown renderer provided through Lit
 * context on the surfaces container, one <a2ui-surface> per rendered surface. Messages arrive
 * over SSE (one A2UI message per event, page-shell.ts); user actions go back as spec
 * `userAction` bodies. An app's bundle also registers the app's own elements (app-components-v08.ts).
 */
import { renderMarkdown } from '@a2ui/markdown-it';
import { Context, type Surface as SurfaceElement } from '@a2ui/lit/ui';
import { Data, type Types } from '@a2ui/lit/v0_8';
import { ContextProvider } from '@lit/context';
import { buildUserAction, type ActionDetail } from './actions.ts';
import { registerAppComponentsV08 } from './app-components-v08.ts';
import type { AppComponentsSpec } from './app-elements.ts';
import { buildProcessingError, messageSurfaceId } from './client-messages.ts';
import { registerOverrides } from './overrides.ts';
import { startPageShell } from './page-shell.ts';
import { surfacerTheme } from './theme.ts';

/** Starts the page; `app`: the app's components, whose elements the bundle defines. */
export function startV08Page(app?: AppComponentsSpec): void {
  registerOverrides();
  registerAppComponentsV08(app);

  const shell = startPageShell(({ container, post }) => {
    // Providers must exist before any <a2ui-surface> connects and asks for its context.
    new ContextProvider(container, { context: Context.themeContext, initialValue: surfacerTheme });
    new ContextProvider(container, { context: Context.markdown, initialValue: renderMarkdown });

    const processor = Data.createSignalA2uiMessageProcessor();
    const elements = new Map<string, SurfaceElement>();
    let syncScheduled = false;

    // Several messages usually arrive together (an init, a batch): reconcile the DOM once.
    function scheduleSync(): void {
      if (syncScheduled) return;
      syncScheduled = true;
      setTimeout(() => {
        syncScheduled = false;
        syncSurfaces();
      }, 0);
    }

    function syncSurfaces(): void {
      const surfaces = processor.getSurfaces();
      for (const [surfaceId, surface] of surfaces) {
        let element = elements.get(surfaceId);
        if (element === undefined) {
          element = document.createElement('a2ui-surface');
          element.surfaceId = surfaceId;
          element.processor = processor;
          // Our TextField and Button (overrides.ts) through the renderer's component registry.
          element.enableCustomElements = true;
          element.dataset.surfaceId = surfaceId;
          container.append(element);
          elements.set(surfaceId, element);
        }
        // deleteSurface + re-init creates a new Surface object under the same id.
        if (element.surface !== surface) element.surface = surface;
      }
      for (const [surfaceId, element] of elements) {
        if (!surfaces.has(surfaceId)) {
          element.remove();
          elements.delete(surfaceId);
        }
      }
    }

    container.addEventListener('a2uiaction', (event) => {
      // composedPath() is only filled while the event is being dispatched.
      const surfaceElement = event.composedPath().find(
        (node): node is SurfaceElement => node instanceof HTMLElement && node.tagName === 'A2UI-SURFACE',
      );
      const surfaceId = surfaceElement?.surfaceId;
      if (typeof surfaceId !== 'string') return;
      const body = buildUserAction(processor, surfaceId, event.detail as ActionDetail, new Date());
      void post(body, 'action');
    });

    return {
      handleMessage(data) {
        let message: unknown;
        try {
          message = JSON.parse(data);
          processor.processMessages([message as Types.ServerToClientMessage]);
        } catch (error) {
          console.error('A2UI message rejected', error);
          void post(buildProcessingError(messageSurfaceId(message), error), 'error');
        }
        scheduleSync();
      },
      clearSurfaces() {
        processor.clearSurfaces();
        syncSurfaces();
      },
    };
  });

  shell.connect(false);
}
