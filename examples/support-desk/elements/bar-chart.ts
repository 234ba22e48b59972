/// <reference lib="dom" />
/*
 * <desk-bar-chart>: a small bar chart of weekly counts on the A2UI pages (the BarChart
 * component's element, bundled into the page clients). Bars are plain elements sized by their
 * share of the largest value; every bar says its label and value in words too (screen readers,
 * and a chart read without colour).
 */
import { css, html, LitElement, nothing } from 'lit';

interface Bar { label: string; value: number }

export class DeskBarChart extends LitElement {
  static override properties = { props: { attribute: false }, items: { attribute: false } };

  // Declared, set in the constructor: a class field would shadow Lit's reactive accessor.
  declare props: { title?: string; unit?: string };
  /** The bars: the collection's items, `{key, label, value}`. */
  declare items: Bar[];

  constructor() {
    super();
    this.props = {};
    this.items = [];
  }

  static override styles = css`
    :host { display: block; font: inherit; color: var(--text, #1f2937); }
    figure { margin: 0; }
    figcaption { font-weight: 600; margin-bottom: 0.5rem; }
    .bars { display: flex; align-items: flex-end; gap: 0.5rem; height: 8rem; padding: 0 0.25rem; border-bottom: 1px solid var(--line, #d1d5db); }
    .bar { flex: 1 1 0; display: flex; flex-direction: column; align-items: center; justify-content: flex-end; height: 100%; min-width: 1.5rem; }
    .fill { width: 100%; max-width: 3rem; background: var(--accent, #1d4ed8); border-radius: 4px 4px 0 0; min-height: 2px; }
    .value { font-size: 0.85rem; margin-bottom: 0.2rem; }
    .labels { display: flex; gap: 0.5rem; padding: 0.25rem 0.25rem 0; }
    .labels span { flex: 1 1 0; min-width: 1.5rem; text-align: center; font-size: 0.8rem; color: var(--muted, #6b7280); }
  `;

  override render() {
    const bars = Array.isArray(this.items) ? this.items.filter((b) => typeof b?.label === 'string' && Number.isFinite(b?.value)) : [];
    const max = Math.max(1, ...bars.map((b) => b.value));
    const unit = this.props.unit ? ` ${this.props.unit}` : '';
    return html`<figure>
      ${this.props.title ? html`<figcaption>${this.props.title}</figcaption>` : nothing}
      <div class="bars" role="list">
        ${bars.map((b) => html`<div class="bar" role="listitem" aria-label=${`${b.label}: ${b.value}${unit}`}>
          <span class="value" aria-hidden="true">${b.value}</span>
          <div class="fill" style=${`height: ${Math.round((b.value / max) * 85)}%`}></div>
        </div>`)}
      </div>
      <div class="labels" aria-hidden="true">${bars.map((b) => html`<span>${b.label}</span>`)}</div>
    </figure>`;
  }
}

if (customElements.get('desk-bar-chart') === undefined) customElements.define('desk-bar-chart', DeskBarChart);
