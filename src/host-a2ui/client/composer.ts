/// <reference lib="dom" />
/*
 * The A2UI pages' message box: it posts to the conversation as the htmx page does (its
 * `POST /c/{cid}/messages`, the session's CSRF token in `X-CSRF-Token`, a JSON answer) and shows
 * the new transcript entries. Enter sends, Shift+Enter makes a new line; the box empties as the
 * message leaves, so what is typed during the turn is kept; an alert goes with the next success.
 * The turn's panels arrive over the page's own A2UI stream.
 */

const ROLE_LABELS: Record<string, string> = { user: 'You', assistant: 'Assistant', system: 'Note' };

interface TurnAnswer {
  ok?: boolean;
  transcript?: Array<{ role?: unknown; text?: unknown }>;
  error?: { message?: unknown };
  message?: unknown;
}

export function startComposer(): void {
  const formElement = document.getElementById('a2ui-message-form');
  const boxElement = document.getElementById('a2ui-message-text');
  const transcript = document.getElementById('a2ui-transcript');
  const alerts = document.getElementById('a2ui-alerts');
  const status = document.getElementById('a2ui-turn-status');
  const busy = document.getElementById('a2ui-busy');
  if (!(formElement instanceof HTMLFormElement) || !(boxElement instanceof HTMLTextAreaElement) || transcript === null || alerts === null || status === null || busy === null) return;
  const form: HTMLFormElement = formElement;
  const box: HTMLTextAreaElement = boxElement;
  const send = form.querySelector('button[type="submit"]');
  let running = false;

  const pin = (): void => {
    if (transcript.scrollHeight > transcript.clientHeight) transcript.scrollTop = transcript.scrollHeight;
  };
  pin();

  function showAlert(text: string | undefined): void {
    alerts!.replaceChildren();
    if (text === undefined) return;
    const p = document.createElement('p');
    p.className = 'a2ui-alert';
    p.textContent = text;
    alerts!.append(p);
  }

  function append(entries: TurnAnswer['transcript']): void {
    for (const entry of entries ?? []) {
      if (typeof entry.text !== 'string' || typeof entry.role !== 'string') continue;
      const li = document.createElement('li');
      li.className = `a2ui-entry a2ui-entry--${entry.role}`;
      const role = document.createElement('span');
      role.className = 'a2ui-entry__role';
      role.textContent = ROLE_LABELS[entry.role] ?? entry.role;
      const text = document.createElement('p');
      text.className = 'a2ui-entry__text';
      text.textContent = entry.text;
      li.append(role, text);
      transcript!.append(li);
    }
    pin();
    const last = transcript!.lastElementChild;
    // Narrow screens scroll as one page: show the reply.
    if (last !== null && transcript!.scrollHeight <= transcript!.clientHeight) last.scrollIntoView({ block: 'nearest' });
  }

  async function submit(): Promise<void> {
    if (running) return;
    const text = box.value;
    if (text.trim() === '') {
      showAlert('Please type a message.');
      return;
    }
    running = true;
    box.value = '';
    busy!.hidden = false;
    send?.setAttribute('disabled', '');
    status!.textContent = '';
    let answer: TurnAnswer | undefined;
    let ok = false;
    try {
      const response = await fetch(form.action, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', 'X-CSRF-Token': form.dataset.csrf ?? '' },
        body: new URLSearchParams({ text }),
        credentials: 'same-origin',
      });
      answer = await response.json().catch(() => undefined) as TurnAnswer | undefined;
      ok = response.ok && answer?.ok === true;
    } catch {
      answer = { message: 'Could not reach the server. Please try again.' };
    } finally {
      running = false;
      busy!.hidden = true;
      send?.removeAttribute('disabled');
    }
    if (ok) {
      showAlert(undefined);
      append(answer?.transcript);
      const problem = answer?.error?.message;
      status!.textContent = typeof problem === 'string' ? problem : 'The assistant replied.';
      return;
    }
    // Refused: the message goes back into the box, before anything typed meanwhile.
    box.value = box.value === '' ? text : `${text}\n${box.value}`;
    const message = typeof answer?.message === 'string' ? answer.message : typeof answer?.error?.message === 'string' ? answer.error.message : undefined;
    showAlert(message ?? 'The message could not be sent.');
  }

  // The empty state's suggestions: pressing one sends its words, as if typed.
  document.addEventListener('click', (event) => {
    const hint = (event.target as Element | null)?.closest?.('button[data-hint]');
    if (!(hint instanceof HTMLButtonElement) || running) return;
    event.preventDefault();
    box.value = hint.dataset.hint ?? '';
    void submit();
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  box.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
    event.preventDefault();
    void submit();
  });
}
