/// <reference lib="dom" />
/*
 * <demo-portrait-card>: the PortraitCard component's element on the A2UI pages (bundled into the
 * page clients). The page sets `props` (docs/components.md); the card shows no buttons.
 */
import { css, html, LitElement, nothing } from 'lit';

interface Props { name?: string; tagline?: string; genre?: string; tags?: string[]; greeting?: string; portrait?: string }

export class DemoPortraitCard extends LitElement {
  static override properties = { props: { attribute: false } };

  // Declared, set in the constructor: a class field would shadow Lit's reactive accessor.
  declare props: Props;

  constructor() {
    super();
    this.props = {};
  }

  static override styles = css`
    :host { display: block; font: inherit; color: var(--text, #1f2937); }
    article { display: flex; gap: 1rem; align-items: flex-start; padding: 1rem; border: 1px solid var(--line, #d1d5db);
      border-radius: calc(var(--radius, 8px) * 1.5); background: linear-gradient(135deg, #eef2ff, #fff 60%); }
    .medallion { flex: none; width: 4.5rem; height: 4.5rem; border-radius: 50%; display: grid; place-items: center;
      font-size: 1.6rem; font-weight: 700; color: #fff; background: var(--accent, #4338ca); box-shadow: 0 2px 6px rgb(0 0 0 / 0.15); }
    img { flex: none; width: 4.5rem; height: 4.5rem; border-radius: 50%; object-fit: cover; }
    h3 { margin: 0; font-size: 1.25rem; }
    .tagline { margin: 0.2rem 0 0.5rem; color: var(--muted, #6b7280); font-style: italic; }
    .chips { display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0 0 0.5rem; padding: 0; list-style: none; }
    .chips li { padding: 0.05rem 0.55rem; border-radius: 999px; background: #e0e7ff; color: #3730a3; font-size: 0.85em; }
    .chips li.genre { background: #4338ca; color: #fff; }
    blockquote { margin: 0; padding-left: 0.75rem; border-left: 3px solid var(--accent, #4338ca); }
  `;

  override render() {
    const p = this.props;
    if (typeof p.name !== 'string') return nothing;
    const initials = p.name.split(/\s+/).map((w) => w.charAt(0)).join('').slice(0, 2).toUpperCase();
    const tags = Array.isArray(p.tags) ? p.tags.filter((t) => typeof t === 'string') : [];
    return html`<article aria-label=${p.name}>
      ${p.portrait ? html`<img src=${p.portrait} alt=${p.name}>` : html`<span class="medallion" aria-hidden="true">${initials}</span>`}
      <div>
        <h3>${p.name}</h3>
        ${p.tagline ? html`<p class="tagline">${p.tagline}</p>` : nothing}
        ${p.genre || tags.length > 0 ? html`<ul class="chips" aria-label="Genre and tags">
          ${p.genre ? html`<li class="genre">${p.genre}</li>` : nothing}${tags.map((t) => html`<li>${t}</li>`)}</ul>` : nothing}
        ${p.greeting ? html`<blockquote>“${p.greeting}”</blockquote>` : nothing}
      </div>
    </article>`;
  }
}

if (customElements.get('demo-portrait-card') === undefined) customElements.define('demo-portrait-card', DemoPortraitCard);
