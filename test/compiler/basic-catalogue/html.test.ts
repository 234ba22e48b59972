import * as cheerio from 'cheerio';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileConversationToHtml } from '../../../src/compiler/html/index.ts';
import { ICON_GLYPHS } from '../../../src/compiler/html/icons.ts';
import { ConversationIr, ICON_NAMES } from '../../../src/ui-ir/index.ts';
import { irWith, surfaceOf } from '../html/fixtures.ts';
import { arbConversationIr } from '../../support/arbitraries-ir.ts';
import { catalogueView, HOSTILE } from './fixtures.ts';

function render() {
  const ir = irWith(surfaceOf(catalogueView(), { draft: { nick: 'Ari', note: 'hello' } }));
  expect(ConversationIr.safeParse(ir).success).toBe(true);
  const { html } = compileConversationToHtml(ir, { csrfToken: 'tok' });
  return { html, $: cheerio.load(html) };
}

describe('HTML compiler: basic catalogue blocks, without JavaScript', () => {
  it('renders tabs as details sharing one name (an exclusive accordion), the first open, each with its title as summary', () => {
    const { $ } = render();
    const tabs = $('.tabs');
    expect(tabs.length).toBe(1);
    expect(tabs.attr('id')).toBe('surface-main-b0');
    const details = tabs.children('details.tabs__tab');
    expect(details.length).toBe(2);
    expect(details.map((_, d) => $(d).attr('name')).get()).toEqual(['surface-main-b0', 'surface-main-b0']);
    expect(details.map((_, d) => $(d).attr('id')).get()).toEqual(['surface-main-b0-0', 'surface-main-b0-1']);
    expect($(details[0]).attr('open')).toBeDefined();
    expect($(details[1]).attr('open')).toBeUndefined();
    expect($(details[0]).children('summary').text()).toBe('Profile');
    expect($(details[1]).children('summary').text()).toBe(HOSTILE);
    expect($(details[1]).find('.tabs__panel').hasClass('group--row')).toBe(true);
  });

  it('renders the modal as details whose summary is the button and whose body is a labelled dialog', () => {
    const { $ } = render();
    const modal = $('details.modal');
    expect(modal.length).toBe(1);
    expect(modal.attr('id')).toBe('surface-main-b1');
    expect(modal.attr('open')).toBeUndefined();
    expect(modal.children('summary.modal__open').text()).toBe('Open details');
    const dialog = modal.children('.modal__dialog');
    expect(dialog.attr('role')).toBe('dialog');
    expect(dialog.attr('aria-labelledby')).toBe('surface-main-b1-title');
    expect($('#surface-main-b1-title').text()).toBe('Details');
  });

  it('keeps fields inside tabs and the modal in the surface form, with their draft values (they post like any field)', () => {
    const { $ } = render();
    const form = $('form.surface__form');
    expect(form.find('details.tabs__tab input[name="nick"]').val()).toBe('Ari');
    expect(form.find('details.modal textarea[name="note"]').text()).toBe('hello');
  });

  it('marks a required field inside tabs or a modal aria-required, not required (a hidden invalid control would block the submit silently)', () => {
    const required = { kind: 'field' as const, name: 'nick', label: 'Nick', control: 'text' as const, required: true };
    const ir = irWith(surfaceOf(catalogueView({
      blocks: [
        { kind: 'field', name: 'top', label: 'Top', control: 'text', required: true },
        { kind: 'tabs', blocks: [{ kind: 'group', title: 'A', layout: 'column', blocks: [{ kind: 'group', layout: 'row', blocks: [required] }] }] },
        { kind: 'modal', label: 'Open', blocks: [{ ...required, name: 'note', control: 'textarea' }] },
      ],
    })));
    const $ = cheerio.load(compileConversationToHtml(ir).html);
    expect($('input[name="top"]').attr('required')).toBeDefined();
    for (const sel of ['input[name="nick"]', 'textarea[name="note"]']) {
      expect($(sel).attr('required'), sel).toBeUndefined();
      expect($(sel).attr('aria-required'), sel).toBe('true');
    }
  });

  it('renders native video and audio players with the http(s) URL and a link fallback, captions escaped', () => {
    const { $, html } = render();
    const video = $('figure.block-video video');
    expect(video.attr('src')).toBe('https://example.com/v.mp4?a=1&b=2');
    expect(video.attr('controls')).toBeDefined();
    expect(video.find('a').attr('href')).toBe('https://example.com/v.mp4?a=1&b=2');
    expect($('figure.block-video figcaption').text()).toBe(HOSTILE);
    expect(html).toContain('src="https://example.com/v.mp4?a=1&amp;b=2"');
    const audio = $('figure.block-audio audio');
    expect(audio.attr('src')).toBe('http://example.com/a.ogg');
    expect(audio.attr('aria-label')).toBe('Theme song');
    expect($('figure.block-audio figcaption').text()).toBe('Theme song');
  });

  it('renders icons as glyphs with an accessible name: the label beside it, or the name in words', () => {
    const { $ } = render();
    const icons = $('.block-icon');
    expect(icons.length).toBe(2);
    const cart = $(icons[0]);
    expect(cart.attr('data-icon')).toBe('shoppingCart');
    expect(cart.attr('role')).toBe('img');
    expect(cart.attr('aria-label')).toBe('shopping cart');
    expect(cart.find('.block-icon__glyph').attr('aria-hidden')).toBe('true');
    const star = $(icons[1]);
    expect(star.attr('role')).toBeUndefined();
    expect(star.find('.block-icon__label').text()).toBe(HOSTILE);
    for (const name of ICON_NAMES) expect(ICON_GLYPHS[name], name).toMatch(/^\S+$/u);
  });

  it('needs no JavaScript: no script element, no inline handler, and hostile text never becomes markup', () => {
    const { $, html } = render();
    expect($('script').length).toBe(0);
    const handlers = $('*').toArray().flatMap((el) => Object.keys((el as unknown as { attribs: Record<string, string> }).attribs).filter((a) => a.startsWith('on')));
    expect(handlers).toEqual([]);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('gives the same bytes for the same IR, and element ids from the block\'s place', () => {
    expect(render().html).toBe(render().html);
    const nested = irWith(surfaceOf(catalogueView({
      blocks: [{ kind: 'group', layout: 'column', blocks: [{ kind: 'modal', label: 'Open', blocks: [] }] }],
    })));
    const $ = cheerio.load(compileConversationToHtml(nested).html);
    expect($('details.modal').attr('id')).toBe('surface-main-b0-0');
    // No title: the dialog is named by the button's label.
    expect($('details.modal .modal__dialog').attr('aria-label')).toBe('Open');
  });

  it('for any generated IR: unique ids of tabs and modals, no script, media only from http(s), every tabs group has one open tab (500 runs)', () => {
    let containers = 0;
    fc.assert(fc.property(arbConversationIr, (ir) => {
      const $ = cheerio.load(compileConversationToHtml(ir).html);
      // The ids of tabs and modals are unique among all ids of the page (other blocks' ids are their own tests' concern).
      const all = $('[id]').map((_, el) => $(el).attr('id')).get();
      const ours = $('.tabs, .tabs__tab, details.modal, .modal__title').map((_, el) => $(el).attr('id')).get();
      for (const id of ours) expect(all.filter((x) => x === id), id).toHaveLength(1);
      expect($('script').length).toBe(0);
      $('video, audio').each((_, el) => { expect($(el).attr('src')).toMatch(/^https?:\/\//); });
      $('.tabs').each((_, el) => {
        containers += 1;
        const tabs = $(el).children('details');
        expect(tabs.filter('[open]').length).toBe(1);
        expect(new Set(tabs.map((__, d) => $(d).attr('name')).get())).toEqual(new Set([$(el).attr('id')]));
      });
      containers += $('details.modal').length;
    }), { numRuns: 500 });
    expect(containers).toBeGreaterThan(50);
  });
});
