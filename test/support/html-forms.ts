import * as cheerio from 'cheerio';

/**
 * What the htmx page's forms post, read from its HTML the way a browser without JavaScript
 * would: hidden inputs plus the pressed button's `_action`.
 */
export function itemFormFields(html: string, key: string, action: string): Record<string, string> | undefined {
  const $ = cheerio.load(html);
  // A list's <li> or an app component's item (the support desk's table rows are <tr>s).
  const button = $(`[data-key="${key}"] button[name="_action"][value="${action}"]`);
  if (button.length !== 1) return undefined;
  const fields: Record<string, string> = { _action: action };
  $(`form#${button.attr('form')!} input[type="hidden"]`).each((_, input) => { fields[$(input).attr('name')!] = $(input).attr('value') ?? ''; });
  return fields;
}

/** The hidden inputs of the form of surface `surfaceId` (`_surface`, `_epoch`, `_nonce`, `_rev`, `_idem`, …). */
export function surfaceFormFields(html: string, surfaceId: string): Record<string, string> {
  const $ = cheerio.load(html);
  const fields: Record<string, string> = {};
  $(`#surface-${surfaceId} form:not(.surface__item-form) input[type="hidden"]`).each((_, input) => {
    fields[$(input).attr('name')!] ??= $(input).attr('value') ?? '';
  });
  return fields;
}

/** The keys of the items of list `list` shown on the page, in order. */
export function listKeys(html: string, list: string): string[] {
  const $ = cheerio.load(html);
  return $(`[data-list="${list}"] [data-key]`).map((_, li) => $(li).attr('data-key')).get();
}
