import type { Context, Hono } from 'hono';
import type { Conversation, ConversationService, Logger } from '../conversation/index.ts';
import type { Heartbeat } from '../hosting/index.ts';
import type { HostDeps, HostLimits } from './deps.ts';
import type { PageContext } from './fragments.ts';
import type { Session, Sessions } from './session.ts';
import type { StreamRegistry } from './streams.ts';
import type { LayoutData, Views } from './views.ts';

/** A page id (`_page` / `page`): a client-chosen tag for the changes a page caused itself. */
export const PAGE_ID = /^[A-Za-z0-9_-]{8,40}$/;

export type FormFields = Record<string, string | string[]>;

export interface HostVariables {
  session: Session;
  conversation: Conversation;
  pc: PageContext;
  fields: FormFields;
  /** The page (tab) that sent the request, from the X-Surfacer-Page header; SSE skips its own changes. */
  pageId: string | undefined;
}

export type HostEnv = { Variables: HostVariables };
export type HostContext = Context<HostEnv>;
export type HostHono = Hono<HostEnv>;

/** What route modules share; built once per createApp. */
export interface Host {
  deps: HostDeps;
  service: ConversationService;
  limits: HostLimits;
  logger: Logger;
  views: Views;
  sessions: Sessions;
  streams: StreamRegistry;
  /** Pings idle SSE streams (one timer for all of them). */
  heartbeat: Heartbeat;
  randomToken: (bytes: number) => string;
  layout(c: HostContext, extra: { title: string; pageId?: string; withTrace?: boolean }): LayoutData;
}
