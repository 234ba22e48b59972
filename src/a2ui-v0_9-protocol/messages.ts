import { z } from 'zod';

/**
 * v0.9 message envelopes (`server_to_client.json`, `client_to_server.json`) as the package's
 * zod schemas have them (src/v0_9/schema/server-to-client.js, client-to-server.js). A message
 * is `{"version": "v0.9" | "v0.9.1", <one kind>: {...}}`, strict at both levels.
 */
export const A2UI_V09_VERSIONS = ['v0.9', 'v0.9.1'] as const;
export const A2uiV09Version = z.enum(A2UI_V09_VERSIONS);
export type A2uiV09Version = z.infer<typeof A2uiV09Version>;

/** The envelope of one component: its type and id; the properties are the catalogue's business. */
export const AnyComponent = z.looseObject({ component: z.string(), id: z.string().optional(), weight: z.number().optional() });

export const CreateSurfaceMessage = z.strictObject({
  version: A2uiV09Version,
  createSurface: z.strictObject({
    surfaceId: z.string(),
    catalogId: z.string(),
    theme: z.any().optional(),
    sendDataModel: z.boolean().optional(),
  }),
});

export const UpdateComponentsMessage = z.strictObject({
  version: A2uiV09Version,
  updateComponents: z.strictObject({ surfaceId: z.string(), components: z.array(AnyComponent).min(1) }),
});

/** Without `value`, the update deletes what is at `path`. */
export const UpdateDataModelMessage = z.strictObject({
  version: A2uiV09Version,
  updateDataModel: z.strictObject({ surfaceId: z.string(), path: z.string().optional(), value: z.any().optional() }),
});

export const DeleteSurfaceMessage = z.strictObject({
  version: A2uiV09Version,
  deleteSurface: z.strictObject({ surfaceId: z.string() }),
});

export const ServerMessage = z.union([CreateSurfaceMessage, UpdateComponentsMessage, UpdateDataModelMessage, DeleteSurfaceMessage]);

export const SERVER_MESSAGE_KINDS = ['createSurface', 'updateComponents', 'updateDataModel', 'deleteSurface'] as const;
export type ServerMessageKind = (typeof SERVER_MESSAGE_KINDS)[number];

/** What a client sends when a Button's event action fires: the context with its bindings resolved. */
export const ClientAction = z.strictObject({
  name: z.string(),
  surfaceId: z.string(),
  sourceComponentId: z.string(),
  timestamp: z.iso.datetime(),
  context: z.record(z.string(), z.any()),
});
export type ClientAction = z.infer<typeof ClientAction>;

/** A client that could not apply something: `VALIDATION_FAILED` with a pointer, or any other code. */
export const ClientError = z.union([
  z.strictObject({ code: z.literal('VALIDATION_FAILED'), surfaceId: z.string(), path: z.string(), message: z.string() }),
  z.looseObject({ code: z.string().refine((c) => c !== 'VALIDATION_FAILED'), message: z.string(), surfaceId: z.string() }),
]);

/** Open at the top level (as the package has it): keys besides `version` and the kind are ignored. */
export const ClientMessage = z.object({ version: A2uiV09Version })
  .and(z.union([z.object({ action: ClientAction }), z.object({ error: ClientError })]));
export type ClientMessage = z.infer<typeof ClientMessage>;
