/// <reference lib="dom" />
/*
 * The view's catalogue: the official Lit v0.9 basic catalogue, with its labelled inputs given
 * their labels. The official TextField, DateTimeInput, Slider and ChoicePicker render their
 * label as a bare <label>/<span> beside the control, never associated with it, so a screen
 * reader announces an unnamed field. Each is rendered here by a subclass of the official element
 * (same template, same styles) that, after every render, points its controls at the label with
 * aria-labelledby (a fresh id per label: the elements may render in the light DOM); the ChoicePicker's options get
 * a group named by it. Nothing else changes: the catalogue keeps the basic catalogue's id,
 * components, functions and theme schema.
 */
import { basicCatalog } from '@a2ui/lit/v0_9';
import {
  A2uiBasicTextFieldElement, A2uiChoicePickerElement, A2uiDateTimeInputElement, A2uiSliderElement,
} from '@a2ui/web_core/v0_9/basic_catalog';
import { Catalog } from '@a2ui/web_core/v0_9';

let nextLabel = 0;

type Rendered = HTMLElement & { renderRoot: HTMLElement | DocumentFragment };

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

class LabelledTextField extends A2uiBasicTextFieldElement {
  protected override updated(changed: Map<PropertyKey, unknown>): void {
    super.updated(changed);
    linkLabel(this as unknown as Rendered, ':scope > label', 'input, textarea');
  }
}

class LabelledDateTimeInput extends A2uiDateTimeInputElement {
  protected override updated(changed: Map<PropertyKey, unknown>): void {
    super.updated(changed);
    linkLabel(this as unknown as Rendered, 'label.a2ui-date-time-label', 'input');
  }
}

class LabelledSlider extends A2uiSliderElement {
  protected override updated(changed: Map<PropertyKey, unknown>): void {
    super.updated(changed);
    linkLabel(this as unknown as Rendered, '.a2ui-slider-label', 'input[type="range"]');
  }
}

class LabelledChoicePicker extends A2uiChoicePickerElement {
  protected override updated(changed: Map<PropertyKey, unknown>): void {
    super.updated(changed);
    linkLabel(this as unknown as Rendered, ':scope > label', undefined, '.a2ui-choice-picker');
  }
}

const REPLACEMENTS: ReadonlyArray<{ name: string; tag: string; element: CustomElementConstructor }> = [
  { name: 'TextField', tag: 'sv-basic-textfield', element: LabelledTextField },
  { name: 'DateTimeInput', tag: 'sv-basic-datetimeinput', element: LabelledDateTimeInput },
  { name: 'Slider', tag: 'sv-basic-slider', element: LabelledSlider },
  { name: 'ChoicePicker', tag: 'sv-basic-choicepicker', element: LabelledChoicePicker },
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
