import * as cheerio from 'cheerio';
import { expect } from 'vitest';
import type { FormBody, HttpClient } from '../../support/http-client.ts';

export type Doc = cheerio.CheerioAPI;

export function parse(html: string): Doc {
  return cheerio.load(html);
}

export interface OpenedConversation {
  cid: string;
  base: string;
  $: Doc;
  csrf: string;
}

/** GET / → 303 → the page, as a browser would. */
export async function openConversation(client: HttpClient): Promise<OpenedConversation> {
  const first = await client.get('/');
  expect(first.status).toBe(303);
  const base = first.headers.get('location')!;
  expect(base).toMatch(/^\/c\/[A-Za-z0-9_-]+$/);
  const page = await client.get(base);
  expect(page.status).toBe(200);
  const $ = parse(await page.text());
  const csrf = $('#message-form input[name="_csrf"]').attr('value')!;
  expect(csrf).toBeTruthy();
  return { cid: base.slice(3), base, $, csrf };
}

/** The fields a browser would submit from a surface's form (successful controls only). */
export function formFields($: Doc, surfaceId: string): Record<string, string | string[]> {
  const form = $(`#surface-${surfaceId} form.surface__form`);
  expect(form.length).toBe(1);
  const fields: Record<string, string | string[]> = {};
  const add = (name: string, value: string): void => {
    const prev = fields[name];
    fields[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  };
  form.find('input, textarea, select').each((_, el) => {
    const $el = $(el);
    const name = $el.attr('name');
    if (!name || $el.is('[type="file"]') || $el.is('[type="submit"]')) return;
    if ($el.is('[type="checkbox"]')) { if ($el.is('[checked]')) add(name, $el.attr('value') ?? 'on'); return; }
    if ($el.is('select')) { const v = $el.find('option[selected]').attr('value'); if (v !== undefined) add(name, v); return; }
    if ($el.is('textarea')) { add(name, $el.text()); return; }
    add(name, $el.attr('value') ?? '');
  });
  return fields;
}

export async function sendMessage(client: HttpClient, c: OpenedConversation, text: string, as: 'htmx' | 'browser' = 'htmx'): Promise<Response> {
  return client.post(`${c.base}/messages`, { _csrf: c.csrf, text }, { as });
}

export function submitForm(
  client: HttpClient, c: OpenedConversation, fields: FormBody, action = 'form.submit', as: 'htmx' | 'browser' | 'json' = 'htmx',
): Promise<Response> {
  return client.post(`${c.base}/actions`, { ...fields, _action: action }, { as });
}

export async function pageOf(client: HttpClient, c: OpenedConversation): Promise<Doc> {
  const page = await client.get(c.base);
  expect(page.status).toBe(200);
  return parse(await page.text());
}

export function savedValue($: Doc, surfaceId: string, key: string): string {
  return $(`#surface-${surfaceId} .value[data-path="/committed/${key}"] .value__text`).text().trim();
}
