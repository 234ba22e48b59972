/// <reference lib="dom" />
/*
 * The view's catalogue: the official Lit v0.9 basic catalogue, with its labelled inputs given
 * their labels. The official TextField, DateTimeInput, Slider and ChoicePicker render their
 * label as a bare <label>/<span> beside the control, never associated with it, so a screen
 * reader announces an unnamed field. Each is rendered here by a subclass of the official element
 * (same template, same styles; made by `labelled`) that, after every render, points its controls
 * at the label with aria-labelledby (a fresh id per label: the elements may render in the light
 * DOM); the ChoicePicker's options get a group named by it. Nothing else changes: the catalogue keeps the basic catalogue's id,
 * components, functions and theme schema.
 */
import { basicCatalog } from '@a2ui/lit/v0_9';
import {
  A2uiBasicTextFieldElement, A2uiChoicePickerElement, A2uiDateTimeInputElement, A2uiSliderElement,
} from '@a2ui/web_core/v0_9/basic_catalog';
import { Catalog } from '@a2ui/web_core/v0_9';

let nextLabel = 0;

/** What the official elements are to this file: Lit elements whose `updated` runs after every render. */
type Rendered = HTMLElement & { renderRoot: HTMLElement | DocumentFragment; updated(changed: Map<PropertyKey, unknown>): void };

/** After a render: the label (if any) names the controls `controls` selects, and the group `group` selects. */
function linkLabel(element: Rendered, labelSelector: string, controls: string | undefined, group?: string): void {
  const root = element.renderRoot;
  const label = root.querySelector<HTMLElement>(labelSelector);
  if (label === null) return;
  // Unique in the document: these elements may render in the light DOM (their render root).
  if (label.id === '') label.id = `sv-label-${(nextLabel += 1)}`;
  if (controls !== undefined) {
    root.querySelectorAll<HTMLElement>(controls).forEach((control) => control.setAttribute('aria-labelledby', label.id));
  }
  if (group !== undefined) {
    const box = root.querySelector<HTMLElement>(group);
    box?.setAttribute('role', 'group');
    box?.setAttribute('aria-labelledby', label.id);
  }
}

/** The official element `base`, rendered as it is, whose label is linked after every render. */
function labelled(base: abstract new () => HTMLElement, labelSelector: string, controls: string | undefined, group?: string): CustomElementConstructor {
  // `updated` is protected on the official classes: seen here as the Lit element each one is.
  const Base = base as unknown as new () => Rendered;
  return class extends Base {
    override updated(changed: Map<PropertyKey, unknown>): void {
      super.updated(changed);
      linkLabel(this, labelSelector, controls, group);
    }
  };
}

const REPLACEMENTS: ReadonlyArray<{ name: string; tag: string; element: CustomElementConstructor }> = [
  { name: 'TextField', tag: 'sv-basic-textfield', element: labelled(A2uiBasicTextFieldElement, ':scope > label', 'input, textarea') },
  { name: 'DateTimeInput', tag: 'sv-basic-datetimeinput', element: labelled(A2uiDateTimeInputElement, 'label.a2ui-date-time-label', 'input') },
  { name: 'Slider', tag: 'sv-basic-slider', element: labelled(A2uiSliderElement, '.a2ui-slider-label', 'input[type="range"]') },
  { name: 'ChoicePicker', tag: 'sv-basic-choicepicker', element: labelled(A2uiChoicePickerElement, ':scope > label', undefined, '.a2ui-choice-picker') },
];

/** The basic catalogue with labelled inputs (defines the subclasses' elements once). */
export function labelledBasicCatalog(): typeof basicCatalog {
  const tags = new Map<string, string>();
  for (const { name, tag, element } of REPLACEMENTS) {
    if (customElements.get(tag) === undefined) customElements.define(tag, element);
    tags.set(name, tag);
  }
  const components = [...basicCatalog.components.values()].map((component) => {
    const tag = tags.get(component.name);
    return tag === undefined ? component : { ...component, tagName: tag };
  });
  return new Catalog(basicCatalog.id, components, [...basicCatalog.functions.values()], basicCatalog.themeSchema) as typeof basicCatalog;
}
