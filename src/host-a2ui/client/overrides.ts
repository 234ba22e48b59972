/// <reference lib="dom" />
/*
 * Components of the official Lit v0.8 renderer replaced through its own extension point
 * (`componentRegistry`, read by <a2ui-root> when `enableCustomElements` is on), as subclasses of
 * the official ones, so the page looks like the htmx page's product:
 * - TextField: a `longText` field is a <textarea> (the official one always renders <input>, with
 *   `textFieldType` unread), and no "Please enter a value" placeholder on every field;
 * - Button: a primary and a secondary look (the official one gives every Button the same class
 *   map from the theme, whatever its `primary`);
 * - MultipleChoice with `maxAllowedSelections: 1` (a single choice): a <select> showing the chosen
 *   option, as on the htmx page (the official one reads no `maxAllowedSelections` and shows a
 *   checkbox dropdown headed "1 Selected"); any other stays the official one;
 * - Text bound to the surface's toast (`/ui/toast/text`, compiler/a2ui-v0_8/data.ts): a status
 *   box coloured by `/ui/toast/level`, as the htmx page shows the toast, so "Saved" under the
 *   "Saved" values reads as the answer to the button, not as a second heading.
 * Everything else (binding, validation event, the action event) is done as the official
 * components do it; classes still come from the theme (theme.ts).
 */
import { componentRegistry, Button, Modal, MultipleChoice, Text, TextField, Utils } from '@a2ui/lit/ui';
import { Events, WebEvents } from '@a2ui/lit/v0_8';
import { css, html, nothing } from 'lit';
import { classMap } from 'lit/directives/class-map.js';
import { TOAST_LEVEL_PATH, TOAST_STYLES, TOAST_TEXT_PATH, toastLevel } from './toast.ts';
import { SECONDARY_BUTTON } from './theme.ts';

export const OVERRIDE_TAGS = {
  TextField: 'a2ui-surfacer-textfield', Button: 'a2ui-surfacer-button', MultipleChoice: 'a2ui-surfacer-multiplechoice', Text: 'a2ui-surfacer-text',
} as const;

class SurfacerTextField extends TextField {
  static override styles = [
    ...(Array.isArray(TextField.styles) ? TextField.styles : [TextField.styles]),
    css`
      textarea { display: block; width: 100%; min-height: 5.5rem; resize: vertical; font: inherit; }
      textarea:invalid { border-color: var(--color-error); }
    `,
  ];

  #write(value: string): void {
    const bound = this.text as { path?: string } | null;
    if (!this.processor || !bound || typeof bound.path !== 'string' || bound.path === '') return;
    this.processor.setData(this.component, bound.path, value, this.surfaceId ?? undefined);
  }

  #onInput(event: Event): void {
    const target = event.target;
    if (!(target instanceof HTMLInputElement) && !(target instanceof HTMLTextAreaElement)) return;
    this.dispatchEvent(new WebEvents.A2UIValidationEvent({ componentId: this.id, value: target.value, valid: target.checkValidity() }));
    this.#write(target.value);
  }

  override render() {
    const label = Utils.extractStringValue(this.label, this.component, this.processor, this.surfaceId);
    const value = Utils.extractStringValue(this.text, this.component, this.processor, this.surfaceId);
    const theme = this.theme.components.TextField;
    const type = this.textFieldType === 'number' ? 'number' : this.textFieldType === 'obscured' ? 'password' : this.textFieldType === 'date' ? 'date' : 'text';
    const control = this.textFieldType === 'longText'
      ? html`<textarea id="data" name="data" rows="4" class=${classMap(theme.element)} .value=${value} @input=${(e: Event) => this.#onInput(e)}></textarea>`
      : html`<input id="data" name="data" autocomplete="off" class=${classMap(theme.element)} type=${type} .value=${value}
          pattern=${this.validationRegexp || nothing} @input=${(e: Event) => this.#onInput(e)} />`;
    return html`<section class=${classMap(theme.container)}>
      ${label ? html`<label class=${classMap(theme.label)} for="data">${label}</label>` : nothing}
      ${control}
    </section>`;
  }
}

class SurfacerButton extends Button {
  /** The registry's path sets the component's properties as they are: `child` is the label's node. */
  set child(node: unknown) {
    this.childComponents = node === undefined || node === null ? null : [node as never];
  }

  /** As the official render, with the secondary look for a Button that is not `primary`. */
  override render() {
    const classes = this.primary ? this.theme.components.Button : SECONDARY_BUTTON;
    return html`<button class=${classMap(classes)} @click=${() => {
      if (!this.action) return;
      this.dispatchEvent(new Events.StateEvent({
        eventType: 'a2ui.action', action: this.action, dataContextPath: this.dataContextPath,
        sourceComponentId: this.id, sourceComponent: this.component,
      }));
    }}><slot></slot></button>`;
  }
}

class SurfacerMultipleChoice extends MultipleChoice {
  /** Set by the registry's path, which sets every property of the component as it is. */
  maxAllowedSelections: number | undefined;

  static override styles = [
    ...(Array.isArray(MultipleChoice.styles) ? MultipleChoice.styles : [MultipleChoice.styles]),
    css`select { display: block; width: 100%; font: inherit; }`,
  ];

  #write(values: string[]): void {
    const bound = this.selections as { path?: string } | string[] | null;
    if (!this.processor || bound === null || Array.isArray(bound) || typeof bound.path !== 'string' || bound.path === '') return;
    this.processor.setData(this.component, bound.path, values, this.surfaceId ?? undefined);
    this.requestUpdate();
  }

  /** A single choice as a <select>, its "Choose…" chosen while nothing is (the htmx page's select). */
  override render() {
    if (this.maxAllowedSelections !== 1) return super.render();
    const chosen = this.getCurrentSelections()[0] ?? '';
    const theme = this.theme.components.TextField;
    return html`<section class=${classMap(theme.container)}>
      <select class=${classMap(theme.element)} @change=${(e: Event) => {
        const value = (e.target as HTMLSelectElement).value;
        this.#write(value === '' ? [] : [value]);
      }}>
        <option value="" .selected=${chosen === ''}>Choose…</option>
        ${this.options.map((o) => html`<option value=${o.value} .selected=${o.value === chosen}>${
          Utils.extractStringValue(o.label, this.component, this.processor, this.surfaceId)}</option>`)}
      </select>
    </section>`;
  }
}

class SurfacerText extends Text {
  static override styles = [
    ...(Array.isArray(Text.styles) ? Text.styles : [Text.styles]),
    TOAST_STYLES,
  ];

  override render() {
    const bound = this.text as { path?: string } | null;
    if (bound?.path !== TOAST_TEXT_PATH || !this.processor || !this.component) return super.render();
    const level = toastLevel(this.processor.getData(this.component, TOAST_LEVEL_PATH, this.surfaceId ?? undefined));
    return html`<div class="toast toast--${level}" role=${level === 'error' ? 'alert' : 'status'}>${super.render()}</div>`;
  }
}

/**
 * The official Modal's close button holds the Material Symbols ligature "close" in a 20 px box;
 * the page loads no web font (closed network, CSP), so it read "cl". A glyph instead, the word
 * kept as the button's accessible name. Added to the class's own styles (Lit adopts them when an
 * instance first renders), so before any modal exists.
 */
function patchModalClose(): void {
  const styles = (Modal as unknown as { elementStyles?: unknown[] }).elementStyles;
  styles?.push(css`
    #controls button { width: auto; height: auto; min-width: 24px; min-height: 24px; color: inherit; font-size: 1.1rem; line-height: 1; }
    #controls button::after { content: '\\2715'; }
    #controls .g-icon { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  `);
}

/** Registers the overrides (once per page, before any surface renders). */
export function registerOverrides(): void {
  patchModalClose();
  componentRegistry.register('TextField', SurfacerTextField as unknown as CustomElementConstructor, OVERRIDE_TAGS.TextField);
  componentRegistry.register('Button', SurfacerButton as unknown as CustomElementConstructor, OVERRIDE_TAGS.Button);
  componentRegistry.register('MultipleChoice', SurfacerMultipleChoice as unknown as CustomElementConstructor, OVERRIDE_TAGS.MultipleChoice);
  componentRegistry.register('Text', SurfacerText as unknown as CustomElementConstructor, OVERRIDE_TAGS.Text);
}
