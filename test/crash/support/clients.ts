import { createClientSim } from '../../../src/clientsim/index.ts';
import { CHARACTER, fillAndSubmit } from '../../e2e/support/stack.ts';
import {
  formFields, openConversation, pageOf, parse, savedValue, sendMessage, submitForm, type OpenedConversation,
} from '../../host-html/support/page.ts';
import { HttpClient } from '../../support/http-client.ts';

/**
 * The two kinds of client of the crash test, over the real HTTP API: a JSON client of the
 * htmx host (session cookie, CSRF token, the form's hidden fields with `_idem`) and an
 * external A2UI client (bearer token, ClientSim over the snapshot, `Idempotency-Key`).
 * Each submission saves the character card under a name no other submission uses.
 */
export interface Submission {
  /** The card's `name`: unique per submission, so the log shows how often it was applied. */
  readonly value: string;
  readonly key: string;
  /** Sends the submission; every attempt sends the same key and the same body. */
  send(): Promise<Response>;
}

/** What a successful answer says (both hosts answer this shape to JSON clients). */
export interface Acknowledgement {
  ok: true;
  replayed: boolean;
  surface: { id: string; rev: number };
}

export interface CrashClient {
  readonly name: string;
  readonly cid: string;
  /** The next submission, from what this client knows of the form (may read the server, and fail while it is down). */
  next(value: string, key: string): Promise<Submission>;
  /** After a 200: remembers what the answer says (the surface's new rev). */
  acknowledged(answer: Acknowledgement): void;
  /** Loads the conversation as this client sees it; the committed name it shows (undefined: none yet). */
  load(): Promise<string | undefined>;
  /** The server came back on another port: later requests (and retries) go there. */
  moveTo(baseUrl: string): void;
}

/** The same browser (its cookies) talking to `baseUrl`. */
function movedClient(http: HttpClient, baseUrl: string): HttpClient {
  const moved = new HttpClient(baseUrl);
  for (const [name, value] of http.cookies) moved.cookies.set(name, value);
  return moved;
}

/** A new conversation in `http`'s browser session, its character card form opened by a turn. */
async function openCard(http: HttpClient, name: string): Promise<OpenedConversation> {
  const c = await openConversation(http);
  const turn = await sendMessage(http, c, 'create a character card named Aria');
  if (turn.status !== 200) throw new Error(`${name}: the opening turn answered ${turn.status}`);
  await turn.arrayBuffer();
  return c;
}

/** A browser session: GET / → its page, the opening turn, then JSON form posts. */
export async function openHtmlClient(name: string, baseUrl: string): Promise<CrashClient> {
  let http = new HttpClient(baseUrl);
  const c = await openCard(http, name);
  let fields = formFields(await pageOf(http, c), 'main');
  return {
    name,
    cid: c.cid,
    async next(value, key) {
      const body = { ...fields, ...CHARACTER, name: value, _idem: key };
      return { value, key, send: () => submitForm(http, c, body, 'form.submit', 'json') };
    },
    acknowledged(answer) {
      fields = { ...fields, _rev: String(answer.surface.rev) };
    },
    async load() {
      const page = await http.get(c.base);
      if (page.status !== 200) throw new Error(`${name}: GET ${c.base} answered ${page.status}`);
      const $ = parse(await page.text());
      // Nothing saved yet: the "Saved" group is left out, or its value shows a placeholder (value__text--empty).
      const value = $('#surface-main .value[data-path="/committed/name"]');
      if (value.length === 0 || value.find('.value__text--empty').length > 0) return undefined;
      return savedValue($, 'main', 'name');
    },
    moveTo(url) {
      http = movedClient(http, url);
    },
  };
}

/**
 * A user opens the conversation in a browser and hands its bearer token (from the page's
 * "Connect an A2UI client" box) to an external A2UI client, which from then on uses only the
 * token: it reads the snapshot, types the name into the form and presses submit.
 */
export async function openA2uiClient(name: string, baseUrl: string): Promise<CrashClient> {
  const http = new HttpClient(baseUrl);
  const c = await openCard(http, name);
  const token = parse(await (await http.get(`/a2ui/c/${c.cid}`)).text())('#a2ui-token').attr('value');
  if (!token) throw new Error(`${name}: no bearer token on the A2UI page`);
  let base = `${baseUrl}/a2ui/c/${c.cid}`;
  const auth = { Authorization: `Bearer ${token}` };

  async function snapshot(): Promise<ReturnType<typeof createClientSim>> {
    const res = await fetch(`${base}/snapshot.jsonl`, { headers: auth });
    if (res.status !== 200) throw new Error(`${name}: snapshot answered ${res.status}`);
    const sim = createClientSim();
    for (const line of (await res.text()).split('\n').filter((l) => l !== '')) {
      const errors = sim.apply(JSON.parse(line) as unknown).filter((v) => v.severity === 'error');
      if (errors.length > 0) throw new Error(`${name}: invalid snapshot message: ${JSON.stringify(errors)}`);
    }
    return sim;
  }
  const mainSurface = (sim: ReturnType<typeof createClientSim>): string => {
    const id = [...sim.surfaces().keys()].find((s) => s.startsWith('main--e'));
    if (id === undefined) throw new Error(`${name}: no main surface in the snapshot`);
    return id;
  };

  return {
    name,
    cid: c.cid,
    async next(value, key) {
      const sim = await snapshot();
      const body = JSON.stringify(fillAndSubmit(sim, mainSurface(sim), { ...CHARACTER, name: value }));
      const send = (): Promise<Response> => fetch(`${base}/events`, {
        method: 'POST', headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': key }, body,
      });
      return { value, key, send };
    },
    acknowledged() {
      // The next submission reads the rev (and everything else) from a fresh snapshot.
    },
    async load() {
      const sim = await snapshot();
      const committed = (sim.surface(mainSurface(sim))?.dataModel as { committed?: { name?: unknown } } | undefined)?.committed;
      return typeof committed?.name === 'string' ? committed.name : undefined;
    },
    moveTo(url) {
      base = `${url}/a2ui/c/${c.cid}`;
    },
  };
}
