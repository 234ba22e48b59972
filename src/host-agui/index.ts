// The AG-UI host: POST /ag-ui over the conversation service, for CopilotKit, assistant-ui and
// any @ag-ui/client HttpAgent (see docs/connect-a-client.md).
export { AGUI_ORIGIN, AGUI_PATH, createAguiHost } from './host.ts';
export type { AguiHost, AguiHostOptions } from './host.ts';
export { conversationIdOfThread, parseRunInput } from './run-input.ts';
export type { ParsedRun, RunIntent } from './run-input.ts';
export { A2UI_ACTIVITY_TYPE, A2UI_OPERATIONS_KEY, activityMessageId, surfaceActivities } from './surfaces.ts';
