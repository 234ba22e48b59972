import { createClientSim, type ClientSim, type UserActionMessage } from '../../../src/clientsim/index.ts';
import type { HttpClient } from '../../support/http-client.ts';
import { fillAndSubmit, type Conversation } from '../../e2e/support/stack.ts';

/** What one user does through whichever instance the load balancer picked, as the two hosts' clients send it. */

/** POST /c/{cid}/messages as the htmx page `pageId` sends it (JSON answer). */
export async function turn(client: HttpClient, c: Conversation, text: string, pageId?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text }, { as: 'json', headers: page(pageId) });
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

/** The hidden fields of surface `surfaceId`'s form on the page as this instance renders it now. */
export async function formOnPage(client: HttpClient, c: Conversation, surfaceId = 'main'): Promise<Record<string, string>> {
  return formIn(await (await client.get(c.base)).text(), surfaceId);
}

/** The hidden fields of surface `surfaceId`'s form in a page's HTML. */
export function formIn(html: string, surfaceId = 'main'): Record<string, string> {
  const form = new RegExp(`id="surface-${surfaceId}"[\\s\\S]*?</form>`).exec(html)?.[0];
  if (form === undefined) throw new Error(`no form of surface ${surfaceId} on the page`);
  const hidden = (name: string): string => {
    const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(form)?.[1];
    if (value === undefined) throw new Error(`no ${name} in the form of ${surfaceId}`);
    return value;
  };
  return { _surface: hidden('_surface'), _epoch: hidden('_epoch'), _nonce: hidden('_nonce'), _rev: hidden('_rev') };
}

/** POST /c/{cid}/actions: the character card's form submitted with `values` (JSON answer). */
export async function htmlSubmit(
  client: HttpClient, c: Conversation, form: Record<string, string>, key: string, values: Record<string, string>, pageId?: string,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await client.post(`${c.base}/actions`, {
    ...form, _csrf: c.csrf, _idem: key, _action: 'form.submit', ...values,
  }, { as: 'json', headers: page(pageId) });
  return { status: res.status, body: await res.json() as Record<string, unknown>, headers: res.headers };
}

/**
 * The renderer's user fills the character card and presses save: the action message it sends.
 * Typed into a copy of the renderer's state, so the renderer itself holds only what the server sent.
 */
export function characterAction(sim: ClientSim, values: Record<string, string>): UserActionMessage {
  const surface = [...sim.surfaces().values()].find((s) => s.rendering && s.components['main.f-name.TextField'] !== undefined);
  if (surface === undefined) throw new Error(`no character card rendered (surfaces: ${[...sim.surfaces().keys()].join(', ')})`);
  return fillAndSubmit(createClientSim({ state: sim.state() }), surface.surfaceId, values);
}

function page(pageId: string | undefined): Record<string, string> {
  return pageId === undefined ? {} : { 'X-Surfacer-Page': pageId };
}
