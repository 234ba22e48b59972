export { A2A_PATH, AGENT_CARD_PATH, createA2aHost } from './host.ts';
export type { A2aHost, A2aHostOptions } from './host.ts';
export { A2A_ORIGIN, PrincipalUser } from './executor.ts';
export { buildAgentCard, legacyAgentCardJson } from './card.ts';
export {
  A2UI_EXTENSION_URIS, A2UI_MIME, A2UI_MIME_LEGACY, CATALOG_IDS, chooseBasicCatalogId, chooseMessageCatalog, chooseWireVersion, mimeTypeOf, SERVED_VERSIONS,
} from './capabilities.ts';
