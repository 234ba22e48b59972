import * as cheerio from 'cheerio';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileConversationToHtml, compileSurfaceToHtml, htmlSurfaceStats, idempotencyKey } from '../../../src/compiler/html/index.ts';
import { ConversationIr, TableBlock, URL_REGEX, type DataMap, type SurfaceView } from '../../../src/ui-ir/index.ts';
import { DRAFT, everyControlView, irWith, surfaceOf } from './fixtures.ts';
import { arbDataValue } from '../../support/arbitraries-ir.ts';

const load = (html: string) => cheerio.load(html);

function sink() {
  const ir = irWith(surfaceOf(everyControlView(), {
    draft: DRAFT,
    committed: { title: 'Aria', tags: ['red', 'green'], agree: true },
    ui: { toast: { id: 'n1', level: 'success', text: 'Saved.' } },
  }));
  expect(ConversationIr.safeParse(ir).success).toBe(true);
  return ir;
}

describe('HTML compiler', () => {
  it('renders one section per surface with a stable id, and a form posting to the ingress', () => {
    const $ = load(compileConversationToHtml(sink(), { csrfToken: 'tok_123' }).html);
    const section = $('section#surface-main');
    expect(section.length).toBe(1);
    expect(section.attr('data-epoch')).toBe('2');
    expect(section.attr('data-rev')).toBe('5');
    expect(section.attr('aria-labelledby')).toBe('surface-main-title');
    expect($('#surface-main-title').text()).toBe('Every control');
    const form = section.find('form');
    expect(form.attr('method')).toBe('post');
    expect(form.attr('action')).toBe('/c/conv1/actions');
    expect(form.attr('hx-post')).toBe('/c/conv1/actions');
    expect(form.attr('hx-target')).toBe('#surface-main');
    expect(form.attr('hx-swap')).toBe('outerHTML');
    expect(form.attr('enctype')).toBe('multipart/form-data');
  });

  it('carries surface, epoch, nonce, rev, a deterministic idempotency key and the CSRF token as hidden fields', () => {
    const ir = sink();
    const $ = load(compileConversationToHtml(ir, { csrfToken: 'tok_123' }).html);
    const hidden = Object.fromEntries($('form input[type="hidden"]').map((_, el) => [[$(el).attr('name'), $(el).attr('value')]]).get() as Array<[string, string]>);
    expect(hidden).toEqual({
      _surface: 'main', _epoch: '2', _nonce: 'nonce_ABCDEFGHIJ', _rev: '5',
      _idem: idempotencyKey('conv1', ir.surfaces[0]!), _csrf: 'tok_123',
    });
    expect(hidden['_idem']).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const bumped = irWith({ ...ir.surfaces[0]!, rev: 6 });
    expect(idempotencyKey('conv1', bumped.surfaces[0]!)).not.toBe(hidden['_idem']);
    expect(load(compileConversationToHtml(ir).html)('input[name="_csrf"]').length).toBe(0);
  });

  it('renders every field control with a label, required, help and its draft value', () => {
    const $ = load(compileConversationToHtml(sink()).html);
    const input = (name: string) => $(`[name="${name}"]`);
    const expectations: Array<[string, string, string | undefined]> = [
      ['title', 'input', 'text'], ['story', 'textarea', undefined], ['age', 'input', 'number'], ['password', 'input', 'password'],
      ['born', 'input', 'date'], ['meeting', 'input', 'datetime-local'], ['alarm', 'input', 'time'], ['agree', 'input', 'checkbox'],
      ['pick', 'select', undefined], ['volume', 'input', 'range'], ['tags', 'input', 'text'], ['site', 'input', 'text'], ['mail', 'input', 'text'],
      ['avatar', 'input', 'file'],
    ];
    for (const [name, tag, type] of expectations) {
      const el = input(name);
      expect(el.length, name).toBe(1);
      expect(el.prop('tagName')!.toLowerCase(), name).toBe(tag);
      if (type) expect(el.attr('type'), name).toBe(type);
      const id = el.attr('id')!;
      expect(id, name).toBe(`f-main-${name}`);
      expect($(`label[for="${id}"]`).length, name).toBe(1);
    }
    expect($('label[for="f-main-title"]').text()).toContain('Title');
    expect(input('title').attr('value')).toBe('Aria <b>"the bard"</b>');
    expect(input('title').is('[required]')).toBe(true);
    expect(input('title').attr('maxlength')).toBe('80');
    expect(input('title').attr('aria-describedby')).toBe('f-main-title-help');
    expect($('#f-main-title-help').text()).toBe('A short title.');
    expect(input('story').text()).toBe('Once\nupon a time');
    expect(input('age').attr('value')).toBe('42');
    expect(input('age').attr('min')).toBe('0');
    expect(input('password').attr('value')).toBe('');
    expect(input('born').attr('value')).toBe('2001-02-03');
    expect(input('meeting').attr('value')).toBe('2026-05-06T07:08');
    expect(input('alarm').attr('value')).toBe('06:30');
    expect(input('agree').is('[checked]')).toBe(true);
    expect(input('agree').is('[required]')).toBe(true);
    expect(input('pick').find('option[selected]').attr('value')).toBe('b');
    expect(input('volume').attr('min')).toBe('0');
    expect(input('volume').attr('max')).toBe('10');
    expect(input('volume').attr('value')).toBe('7');
    expect(input('tags').attr('value')).toBe('red, green');
    expect(input('site').attr('value')).toBe('https://example.com');
    // Links and addresses are text with the matching keyboard, checked by the one pattern every client shares.
    expect(input('site').attr('inputmode')).toBe('url');
    expect(input('mail').attr('inputmode')).toBe('email');
    expect(input('site').attr('pattern')).toBe(URL_REGEX);
  });

  it('renders a multiselect as labelled checkboxes in a fieldset', () => {
    const $ = load(compileConversationToHtml(sink()).html);
    const group = $('fieldset#f-main-many');
    expect(group.find('legend').text()).toContain('Pick some');
    expect(group.attr('aria-describedby')).toBe('f-main-many-help');
    const boxes = group.find('input[type="checkbox"][name="many"]');
    expect(boxes.map((_, el) => $(el).attr('value')).get()).toEqual(['a', 'b', 'c']);
    expect(boxes.filter('[checked]').map((_, el) => $(el).attr('value')).get()).toEqual(['a', 'c']);
    boxes.each((_, el) => { expect($(`label[for="${$(el).attr('id')}"]`).length).toBe(1); });
  });

  it('shows committed values read-only (arrays joined), toasts, images, uploads and groups', () => {
    const $ = load(compileConversationToHtml(sink()).html);
    const value = (path: string) => $(`.value[data-path="${path}"] .value__text`).text();
    expect(value('/committed/title')).toBe('Aria');
    expect(value('/committed/tags')).toBe('red, green');
    expect(value('/committed/agree')).toBe('Yes');
    expect(value('/committed/none')).toBe('—');
    expect($('.surface__toast').text()).toBe('Saved.');
    expect($('.surface__toast').attr('role')).toBe('status');
    expect($('img.block-image').attr('src')).toBe('https://example.com/a.png?x=1&y=2');
    expect($('img.block-image').attr('alt')).toBe('An "image"');
    expect($('input[type="file"]').attr('accept')).toBe('image/png,.jpg');
    expect($('#f-main-avatar-fallback').text()).toBe('Or paste a link in the bio.');
    expect($('fieldset.group--row > legend').text()).toBe('Saved');
    expect($('h3.block-heading').text()).toBe('Basics');
    expect($('p.block-text').first().text()).toBe('Fill in <everything> & "more"');
    expect($('script, b').length).toBe(0);
  });

  it('renders buttons carrying the action name, primary first, cancel without validation', () => {
    const $ = load(compileConversationToHtml(sink()).html);
    const buttons = $('button[name="_action"]');
    expect(buttons.map((_, el) => $(el).attr('value')).get()).toEqual(['form.submit', 'form.cancel']);
    expect(buttons.first().attr('type')).toBe('submit');
    expect(buttons.last().is('[formnovalidate]')).toBe(true);
    expect(buttons.first().attr('id')).toBe('surface-main-action-form_submit');
  });

  it('never renders a non-http(s) image URL', () => {
    const bad = everyControlView();
    bad.blocks = [{ kind: 'image', url: 'javascript:alert(1)', alt: 'bad' }, { kind: 'image', url: 'data:image/png;base64,AA', alt: 'data' }];
    const $ = load(compileConversationToHtml(irWith(surfaceOf(bad))).html);
    expect($('img').length).toBe(0);
    expect($('.block-image--missing').map((_, el) => $(el).text()).get()).toEqual(['bad', 'data']);
  });

  it('renders a closed surface as an empty hidden element with the same id, and an expired one with regenerate', () => {
    const closed = load(compileConversationToHtml(irWith(surfaceOf(everyControlView(), {}, { lifecycle: 'deleted' }))).html);
    expect(closed('section#surface-main').is('[hidden]')).toBe(true);
    expect(closed('section#surface-main').children().length).toBe(0);
    const expired = load(compileConversationToHtml(irWith(surfaceOf(everyControlView(), {}, { lifecycle: 'expired' })), { csrfToken: 't' }).html);
    expect(expired('form.surface__form').length).toBe(0);
    expect(expired('form.regenerate').attr('action')).toBe('/c/conv1/surfaces/main/regenerate');
    expect(expired('form.regenerate input[name="_csrf"]').attr('value')).toBe('t');
  });

  it('marks a fragment for an out-of-band swap only when asked', () => {
    const ir = sink();
    expect(load(compileSurfaceToHtml(ir, 'main', { oob: 'true' })!)('section').attr('hx-swap-oob')).toBe('true');
    expect(load(compileSurfaceToHtml(ir, 'main')!)('section').attr('hx-swap-oob')).toBeUndefined();
    expect(compileSurfaceToHtml(ir, 'nope')).toBeUndefined();
  });

  it('reports per-surface stats for traces', () => {
    const ir = sink();
    const [stats] = htmlSurfaceStats(ir);
    expect(stats).toMatchObject({ surface_id: 'main', target: 'html', epoch: 2, rev: 5, lifecycle: 'editing' });
    expect(stats!.bytes).toBe(Buffer.byteLength(compileConversationToHtml(ir).surfaces[0]!.html));
  });

  it('property: stats remembered per surface object agree with a fresh compile, across conversations and edits', () => {
    const base = sink();
    fc.assert(fc.property(fc.array(fc.record({ title: fc.string({ maxLength: 20 }), cid: fc.constantFrom('c1', 'c22', 'c333') }), { maxLength: 6 }), (edits) => {
      let ir = base;
      for (const { title, cid } of edits) {
        const surface = ir.surfaces[0]!;
        // Alternate: a new surface object, or the same one under another conversation id.
        ir = title.length % 2 === 0
          ? { ...ir, surfaces: [{ ...surface, data: { ...surface.data, draft: { ...surface.data.draft, title } } }] }
          : { ...ir, conversationId: cid };
        expect(htmlSurfaceStats(ir).map((s) => s.bytes)).toEqual(compileConversationToHtml(ir).surfaces.map((s) => Buffer.byteLength(s.html)));
      }
    }), { numRuns: 100 });
  });

  it('property: a block\'s remembered rendering is never stale: any sequence of draft and saved-value edits (lists copied or not), folds and rejected posts renders as a fresh compile of a copy', () => {
    const view = everyControlView();
    const fields = view.blocks.filter((b) => b.kind === 'field');
    // The same field objects inside a tab: folded there (aria-required instead of required).
    const tabbed: SurfaceView = { ...view, blocks: [{ kind: 'tabs', blocks: [{ kind: 'group', title: 'All', layout: 'column', blocks: fields }] }] };
    const step = fc.record({
      name: fc.constantFrom(...fields.map((f) => f.name)),
      value: fc.option(arbDataValue(1), { nil: undefined }),
      folded: fc.boolean(),
      rejected: fc.boolean(),
      surface: fc.constantFrom('main', 'side'),
      // What the "Saved" group's value blocks show.
      saved: fc.option(fc.record({ key: fc.constantFrom('title', 'tags', 'agree', 'none'), value: arbDataValue(1) }), { nil: undefined }),
      // Lists copied: equal values in new arrays (as a save normalises tags each time).
      copyLists: fc.boolean(),
    });
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
      let draft: DataMap = { ...DRAFT };
      let committed: DataMap = {};
      const copied = (map: DataMap): DataMap => Object.fromEntries(Object.entries(map).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]));
      for (const { name, value, folded, rejected, surface, saved, copyLists } of steps) {
        draft = copyLists ? copied(draft) : { ...draft };
        if (copyLists) committed = copied(committed);
        if (value === undefined) delete draft[name];
        else draft[name] = value;
        if (saved !== undefined) committed = { ...committed, [saved.key]: saved.value };
        const ir = irWith(surfaceOf(folded ? tabbed : view, { draft, committed }, { id: surface }));
        const options = { csrfToken: 't', ...(rejected ? { rejected: { surfaceId: surface, fields: { [name]: 'posted' } } } : {}) };
        const html = compileSurfaceToHtml(ir, surface, options)!;
        expect(html).toBe(compileSurfaceToHtml(structuredClone(ir), surface, options));
        // …and a rejected post's value is what its text field shows (never the remembered draft's).
        if (rejected && ['title', 'site', 'mail', 'tags'].includes(name)) expect(load(html)(`input[name="${name}"]`).attr('value')).toBe('posted');
        if (rejected && name === 'story') expect(load(html)('textarea[name="story"]').text()).toBe('posted');
      }
    }), { numRuns: 300 });
  });

  it('is a pure function of the IR: same IR, same bytes; values round-trip through escaping', () => {
    const text = fc.string({ maxLength: 60 });
    fc.assert(fc.property(text, text, fc.integer({ min: 0, max: 1000 }), (title, caption, rev) => {
      const view = everyControlView();
      view.blocks = [{ kind: 'text', text: caption, tone: 'body' }, view.blocks[2]!];
      const ir = irWith(surfaceOf(view, { draft: { title } }, { rev }));
      const first = compileConversationToHtml(ir, { csrfToken: 'x' }).html;
      const second = compileConversationToHtml(structuredClone(ir), { csrfToken: 'x' }).html;
      expect(second).toBe(first);
      const $ = load(first);
      expect($('input[name="title"]').attr('value')).toBe(title);
      expect($('p.block-text').text()).toBe(caption);
      expect($('input[name="_rev"]').attr('value')).toBe(String(rev));
      expect($('section').length).toBe(1);
    }), { numRuns: 200 });
  });
});

describe('the htmx compiler\'s own words', () => {
  // A string with one character past Latin-1 is a two-byte string in V8: the whole answer then
  // costs about twice as much to flatten and encode (~30 µs per 8 KB here). The compiler's
  // own text (placeholders, arrows, ellipses) is written as character references.
  it('add no character beyond ASCII to an IR whose own text is ASCII (every control, a value with nothing saved, a sortable table)', () => {
    const table = TableBlock.parse({
      kind: 'table', name: 'people', title: 'People', path: '/ui/people', itemKey: 'id', sort: { column: 'name', direction: 'asc' },
      columns: [{ key: 'name', label: 'Name', type: 'text', sortable: true }, { key: 'age', label: 'Age', type: 'number', sortable: true }],
    });
    const view = { ...everyControlView(), blocks: [...everyControlView().blocks, table] };
    const rows = Array.from({ length: 8 }, (_, i) => ({ id: `p${i}`, name: `Person ${i}`, age: 20 + i }));
    const ir = irWith(surfaceOf(view, { draft: DRAFT, committed: { title: 'Saved' }, ui: { people: rows } }));
    expect(ConversationIr.safeParse(ir).success).toBe(true);
    const html = compileConversationToHtml(ir).html;
    expect(html).toContain('value__text--empty');
    expect(html).toContain('table__arrow');
    expect(html.match(/[^\x00-\x7f]/g) ?? []).toEqual([]);
  });
});
