/// <reference lib="dom" />
/*
 * The v0.9 A2UI page (`/a2ui/c/{cid}?v=0.9`; its bundle's entry, v0_9/main.ts or an app's, calls
 * startV09Page; a bundle of its own: the v0.8 renderer defines the same element names). Mounts the official Lit v0.9
 * renderer: the official MessageProcessor with the basic catalogue, the markdown renderer
 * through Lit context, one <a2ui-surface> per surface the processor holds. The processor
 * resolves a Button's action itself (GenericBinder) and hands it over validated; it goes back
 * as `{"version", "action"}`. Messages the processor refuses, and errors a surface reports, go
 * back as `{"version", "error"}`. With the app's components, the processor holds the app
 * catalogue too (v0_9/app-components.ts).
 */
import { renderMarkdown } from '@a2ui/markdown-it';
import { Context, type A2uiSurface } from '@a2ui/lit/v0_9';
import { MessageProcessor, type A2uiMessage } from '@a2ui/web_core/v0_9';
import { ContextProvider } from '@lit/context';
import type { AppComponentsSpec } from '../app-elements.ts';
import { buildProcessingError, messageSurfaceId } from '../client-messages.ts';
import { startPageShell } from '../page-shell.ts';
import { appCatalogV09 } from './app-components.ts';

type Version = 'v0.9' | 'v0.9.1';

/** Starts the page; `app`: the app's components, whose elements the bundle defines. */
export function startV09Page(app?: AppComponentsSpec): void {
  const catalogs = appCatalogV09(app);
  const shell = startPageShell(({ container, messageVersion, post }) => {
    const version: Version = messageVersion === 'v0.9.1' ? 'v0.9.1' : 'v0.9';
    // Before any <a2ui-surface> connects: Text asks for it through Lit context.
    new ContextProvider(container, { context: Context.markdown, initialValue: renderMarkdown });

    const processor = new MessageProcessor(catalogs, (action) => {
      void post({ version, action }, 'action');
    }, { version });
    const elements = new Map<string, A2uiSurface>();

    processor.onSurfaceCreated((surface) => {
      // The tag map of the type checker knows v0.8's <a2ui-surface>; this bundle defines v0.9's.
      const element = document.createElement('a2ui-surface') as unknown as A2uiSurface;
      element.surface = surface;
      element.dataset.surfaceId = surface.id;
      container.append(element);
      elements.set(surface.id, element);
      surface.onError.subscribe((error: unknown) => {
        void post({ version, error }, 'error');
      });
    });
    processor.onSurfaceDeleted((surfaceId) => {
      elements.get(surfaceId)?.remove();
      elements.delete(surfaceId);
    });

    return {
      handleMessage(data) {
        let message: unknown;
        try {
          message = JSON.parse(data);
          processor.processMessages([message as A2uiMessage]);
        } catch (error) {
          console.error('A2UI message rejected', error);
          void post(buildProcessingError(messageSurfaceId(message), error, version), 'error');
        }
      },
      clearSurfaces() {
        for (const surfaceId of [...processor.model.surfacesMap.keys()]) {
          processor.processMessages([{ version, deleteSurface: { surfaceId } }]);
        }
      },
    };
  });

  shell.connect(false);
}
