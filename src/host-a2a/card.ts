import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentExtension, type AgentSkill } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { AppDefinition } from '../conversation/index.ts';
import { appCatalogOffer } from '../hosting/index.ts';
import { A2UI_EXTENSION_URIS, A2UI_MIME, A2UI_MIME_LEGACY, CATALOG_IDS, SERVED_VERSIONS } from './capabilities.ts';

/*
 * The agent card, built from the app definition: its name and description, a skill per
 * directive the model may use, the A2UI extension once per wire version served (each with the
 * basic catalogue it is compiled against, and the app's catalogue when it has one), streaming, and the bearer scheme every call but the card's
 * needs. One JSON-RPC endpoint speaks A2A v1.0 and, through the SDK's compatibility layer, v0.3.
 */

export const BEARER_SCHEME = 'bearer';
const MODES = ['text/plain', A2UI_MIME, A2UI_MIME_LEGACY];

export interface CardInput {
  app: AppDefinition;
  /** Absolute URL of the JSON-RPC endpoint. */
  endpoint: string;
  /** Agent version shown on the card. */
  version: string;
}

function extensions(app: AppDefinition): AgentExtension[] {
  // A client that lists the app catalogue gets the app's components; any other their fallbacks.
  const own = appCatalogOffer(app)?.id;
  return SERVED_VERSIONS.map((version) => ({
    uri: A2UI_EXTENSION_URIS[version],
    description: `Answers with A2UI v${version} surfaces when a message's a2uiClientCapabilities list its catalogue, `
      + 'or when a message activates this extension and names no catalogue: then with the basic one',
    required: false,
    params: { supportedCatalogIds: own === undefined ? [CATALOG_IDS[version]] : [own, CATALOG_IDS[version]], acceptsInlineCatalogs: false },
  }));
}

function skills(app: AppDefinition): AgentSkill[] {
  const conversation: AgentSkill = {
    id: 'conversation', name: app.name,
    description: app.texts?.description ?? `Talk to ${app.name}: it answers in text and, for A2UI clients, with interactive surfaces.`,
    tags: ['a2ui', 'ui'], examples: [...(app.texts?.hints ?? [])], inputModes: MODES, outputModes: MODES, securityRequirements: [],
  };
  const directives = app.directives.definitions.map((d): AgentSkill => ({
    id: d.type, name: d.type, description: d.description, tags: ['a2ui', 'directive'], examples: [],
    inputModes: MODES, outputModes: MODES, securityRequirements: [],
  }));
  return [conversation, ...directives];
}

/** The card in the SDK's own (v1.0) form; its JSON is `AgentCard.toJSON(card)`. */
export function buildAgentCard(input: CardInput): AgentCard {
  const { app } = input;
  return {
    name: app.name,
    description: app.texts?.description ?? `${app.name}, an agent that answers with user interfaces (A2UI)`,
    supportedInterfaces: duplicateInterfacesForLegacy(
      [{ url: input.endpoint, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
      ['JSONRPC'],
    ),
    provider: undefined,
    version: input.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: extensions(app), extendedAgentCard: false },
    securitySchemes: {
      [BEARER_SCHEME]: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'A token of SURFACER_API_TOKENS', scheme: 'Bearer', bearerFormat: '' } } },
    },
    securityRequirements: [{ schemes: { [BEARER_SCHEME]: { list: [] } } }],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: skills(app),
    signatures: [],
  };
}

/**
 * The same card as an A2A v0.3 client reads it (`url`, `preferredTransport`, OpenAPI-style
 * security schemes, `kind`-less skills), served when the request names no newer A2A-Version.
 */
export function legacyAgentCardJson(input: CardInput): Record<string, unknown> {
  const card = buildAgentCard(input);
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url: input.endpoint,
    preferredTransport: 'JSONRPC',
    version: card.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: extensions(input.app) },
    securitySchemes: { [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', description: 'A token of SURFACER_API_TOKENS' } },
    security: [{ [BEARER_SCHEME]: [] }],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: card.skills.map((s) => ({
      id: s.id, name: s.name, description: s.description, tags: s.tags, examples: s.examples, inputModes: s.inputModes, outputModes: s.outputModes,
    })),
  };
}
