/// <reference lib="dom" />
/*
 * The basic catalogue as the v0.9 page renders it: the official one (same id, same components,
 * same functions), with its Text element replaced by a subclass that shows the surface's toast
 * (the Text bound to `/ui/toast/text`) as the htmx page shows it (toast.ts). Every other Text,
 * and every other component, is the official element.
 */
import { basicCatalog } from '@a2ui/lit/v0_9';
import { Catalog, type WebComponentImplementation } from '@a2ui/web_core/v0_9';
import { A2uiBasicTextElement } from '@a2ui/web_core/v0_9/basic_catalog';
import { css, html } from 'lit';
import { TOAST_LEVEL_PATH, TOAST_STYLES, TOAST_TEXT_PATH, toastLevel } from '../toast.ts';

export const TEXT_TAG_V09 = 'a2ui-surfacer-text';

class SurfacerTextV09 extends A2uiBasicTextElement {
  // One CSSResult, as the base class declares (its light-DOM scoping reads `styles` as such).
  static override styles = css`${A2uiBasicTextElement.styles}${TOAST_STYLES}`;

  override render() {
    const context = this.context;
    const bound = (context?.componentModel.properties as { text?: unknown } | undefined)?.text as { path?: unknown } | undefined;
    if (context === undefined || bound?.path !== TOAST_TEXT_PATH) return super.render();
    const level = toastLevel(context.dataContext.resolveDynamicValue({ path: TOAST_LEVEL_PATH }));
    return html`<div class="toast toast--${level}" role=${level === 'error' ? 'alert' : 'status'}>${super.render()}</div>`;
  }
}

/** The basic catalogue's components and functions with the page's Text (defined on first call). */
export function pageBasicCatalog(): Catalog<WebComponentImplementation> {
  if (customElements.get(TEXT_TAG_V09) === undefined) customElements.define(TEXT_TAG_V09, SurfacerTextV09);
  const components = [...basicCatalog.components.values()].map((c) => (c.name === 'Text' ? { ...c, tagName: TEXT_TAG_V09 } : c));
  return new Catalog(basicCatalog.id, components, [...basicCatalog.functions.values()]);
}
