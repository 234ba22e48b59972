import type { Part } from '@a2a-js/sdk';
import type { A2uiVersion } from '../compiler/index.ts';
import type { A2uiServerMessage } from '../host-a2ui/index.ts';
import { A2UI_MIME, A2UI_MIME_LEGACY, mimeTypeOf } from './capabilities.ts';

/*
 * A2A parts as the SDK holds them (v1.0: `content.$case`, a top-level `mediaType`); the SDK
 * writes them in the v1.0 or the v0.3 shape (`kind: "data"`) for the client that asked.
 */

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

/** JSON data with a media type (e.g. an error object for programs). */
export function jsonPart(value: unknown, mediaType = 'application/json'): Part {
  return { content: { $case: 'data', value }, mediaType, filename: '', metadata: undefined };
}

/**
 * A2UI messages as data parts, `mediaType` and `metadata.mimeType` together (the extension
 * specs read the latter, A2A v1.0 the former). v0.9.x sends the list in one part, as its
 * extension spec says; v0.8's spec puts one message in each part, and so do answers to v0.3
 * clients, whose DataPart holds an object, never a list (the A2UI Python agent SDK writes one
 * message per part too).
 */
export function a2uiParts(messages: readonly A2uiServerMessage[], version: A2uiVersion, onePerPart: boolean): Part[] {
  if (messages.length === 0) return [];
  const mime = mimeTypeOf(version);
  const part = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: mime, filename: '', metadata: { mimeType: mime } });
  if (version === '0.8' || onePerPart) return messages.map(part);
  return [part(messages)];
}

/** What a client's message says: its text, and the A2UI client messages in its data parts, in order. */
export interface ReadMessage {
  text: string;
  a2ui: unknown[];
}

const A2UI_TYPES = new Set([A2UI_MIME, A2UI_MIME_LEGACY]);

function isA2uiPart(part: Part): boolean {
  const mime = part.metadata?.mimeType;
  return A2UI_TYPES.has(part.mediaType) || (typeof mime === 'string' && A2UI_TYPES.has(mime));
}

/** A2UI data parts hold one message, or a list of them; either is taken. Other parts are ignored. */
export function readMessage(parts: readonly Part[]): ReadMessage {
  const texts: string[] = [];
  const a2ui: unknown[] = [];
  for (const part of parts) {
    const content = part.content;
    if (content?.$case === 'text') texts.push(content.value);
    else if (content?.$case === 'data' && isA2uiPart(part)) {
      if (Array.isArray(content.value)) a2ui.push(...(content.value as unknown[]));
      else a2ui.push(content.value);
    }
  }
  return { text: texts.join('\n').trim(), a2ui };
}
