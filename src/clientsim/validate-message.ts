import type { AppComponentSchemas } from './validate-component.ts';
import { hasError, issue } from './codes.ts';
import { childPointer, cloneJson, isPlainObject, own, type JsonObject } from './json-util.ts';
import type { ComponentInstance, Issue, ServerMessage, Styles } from './types.ts';
import { checkClosure } from './closure.ts';
import { validateComponent } from './validate-component.ts';
import { validateContents } from './validate-data.ts';
import { pickKeys, requireField, requireObject } from './validate-shape.ts';

const MESSAGE_KEYS = ['beginRendering', 'surfaceUpdate', 'dataModelUpdate', 'deleteSurface'] as const;
type MessageKey = (typeof MESSAGE_KEYS)[number];

export interface ValidatedMessage {
  /** Present when the message has no error-severity issue. */
  readonly message?: ServerMessage;
  /** Best effort, so even rejected messages can be attributed to a surface. */
  readonly surfaceId?: string;
  readonly issues: Issue[];
}

function validateStyles(value: unknown, pointer: string, issues: Issue[]): Styles {
  if (!requireObject(value, pointer, issues, 'styles')) return {};
  const styles = pickKeys(value, ['font', 'primaryColor'], pointer, issues, true);
  requireField(styles, 'font', 'string', pointer, issues, false);
  const color = own(styles, 'primaryColor');
  if (color !== undefined && (typeof color !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(color))) {
    issues.push(issue('CLIENTSIM_FIELD_INVALID', "primaryColor must match '#RRGGBB'", childPointer(pointer, 'primaryColor')));
  }
  return styles as Styles;
}

function validateBody(kind: MessageKey, body: JsonObject, pointer: string, issues: Issue[], custom?: AppComponentSchemas): ServerMessage | undefined {
  const surfaceId = own(body, 'surfaceId') as string;
  switch (kind) {
    case 'deleteSurface':
      pickKeys(body, ['surfaceId'], pointer, issues, true);
      return { kind, surfaceId };
    case 'beginRendering': {
      const picked = pickKeys(body, ['surfaceId', 'root', 'catalogId', 'styles'], pointer, issues, true);
      requireField(picked, 'root', 'string', pointer, issues, true);
      requireField(picked, 'catalogId', 'string', pointer, issues, false);
      const styles = own(picked, 'styles');
      const catalogId = own(picked, 'catalogId') as string | undefined;
      return {
        kind, surfaceId, root: own(picked, 'root') as string,
        ...(catalogId === undefined ? {} : { catalogId }),
        ...(styles === undefined ? {} : { styles: validateStyles(styles, childPointer(pointer, 'styles'), issues) }),
      };
    }
    case 'dataModelUpdate': {
      const picked = pickKeys(body, ['surfaceId', 'path', 'contents'], pointer, issues, true);
      requireField(picked, 'path', 'string', pointer, issues, false);
      if (own(picked, 'contents') === undefined) issues.push(issue('CLIENTSIM_FIELD_INVALID', "missing required 'contents'", pointer));
      const contents = validateContents(own(picked, 'contents') ?? [], childPointer(pointer, 'contents'), issues);
      const path = own(picked, 'path') as string | undefined;
      return { kind, surfaceId, ...(path === undefined ? {} : { path }), contents };
    }
    case 'surfaceUpdate': {
      const picked = pickKeys(body, ['surfaceId', 'components'], pointer, issues, true);
      const raw = own(picked, 'components');
      const at = childPointer(pointer, 'components');
      if (!Array.isArray(raw) || raw.length === 0) {
        issues.push(issue('CLIENTSIM_FIELD_INVALID', 'components must be a non-empty array', at));
        return undefined;
      }
      const components = raw.map((c, i) => validateComponent(c, childPointer(at, i), issues, custom));
      const ok = components.filter((c): c is ComponentInstance => c !== undefined);
      if (ok.length === components.length) checkClosure(ok, at, issues);
      return { kind, surfaceId, components: ok };
    }
  }
}

/** Checks one raw message the way WC's `A2uiMessageSchema` would, plus ClientSim's extras. */
/** `custom`: the app components' v0.8 property schemas, when the client holds the app catalogue. */
export function validateMessage(input: unknown, custom?: AppComponentSchemas): ValidatedMessage {
  const issues: Issue[] = [];
  // One deep copy up front: nothing the caller does to `input` later can reach the state.
  const raw = cloneJson(input);
  if (!isPlainObject(raw)) return { issues: [issue('CLIENTSIM_NOT_AN_OBJECT', 'message must be a JSON object')] };
  pickKeys(raw, MESSAGE_KEYS, '', issues, true);
  const present = MESSAGE_KEYS.filter((k) => own(raw, k) !== undefined);
  const first = present[0];
  const body = first === undefined ? undefined : own(raw, first);
  const bodySurface = isPlainObject(body) ? own(body, 'surfaceId') : undefined;
  const surfaceId = typeof bodySurface === 'string' ? bodySurface : undefined;
  const attributed = surfaceId === undefined ? {} : { surfaceId };
  if (present.length !== 1 || first === undefined) {
    issues.push(issue('CLIENTSIM_MESSAGE_KEY_COUNT', `message has ${present.length} message keys (${present.join(', ')}); exactly one is required`));
    return { ...attributed, issues };
  }
  const pointer = `/${first}`;
  if (!requireObject(body, pointer, issues, first)) return { issues };
  requireField(body, 'surfaceId', 'string', pointer, issues, true);
  if (surfaceId === undefined) return { issues };
  const message = validateBody(first, body, pointer, issues, custom);
  return hasError(issues) || message === undefined ? { surfaceId, issues } : { message, surfaceId, issues };
}
