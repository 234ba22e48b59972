/// <reference lib="dom" />
/*
 * CopilotKit's own chat, set up as CopilotKit documents A2UI (react-core 1.74 v2): `<CopilotKit>`
 * with `<CopilotChat>`, nothing of ours in it. Bundled by the test with esbuild.
 * - ?mode=runtime&runtime=<url>: the Copilot Runtime at `runtime` (its /info turns the A2UI
 *   renderer on), whose agent is an HttpAgent to Surfacer's /ag-ui.
 * - ?mode=direct&agui=<url>&token=<t>: no runtime; a browser-side HttpAgent to /ag-ui on
 *   Surfacer's origin (CORS), registered with `agents__unsafe_dev_only` (its other prop for
 *   local agents, `selfManagedAgents`, is CopilotKit's licensed tier and warns in the console
 *   without a licence key), and `a2ui={{ catalog }}` (the basic catalogue CopilotKit ships) to
 *   turn the renderer on.
 */
import { HttpAgent } from '@ag-ui/client';
import { basicCatalog } from '@copilotkit/a2ui-renderer';
import { CopilotChat, CopilotKit } from '@copilotkit/react-core/v2';
import '@copilotkit/react-core/v2/styles.css';
import { createElement, useMemo } from 'react';
import { createRoot } from 'react-dom/client';

const query = new URLSearchParams(location.search);

function App(): ReturnType<typeof createElement> {
  const direct = query.get('mode') === 'direct';
  // Built once: CopilotKit keeps the agent records it is given.
  const agents = useMemo(() => (direct
    ? { default: new HttpAgent({ url: query.get('agui')!, headers: { Authorization: `Bearer ${query.get('token') ?? ''}` } }) }
    : undefined), [direct]);
  const a2ui = useMemo(() => (direct ? { catalog: basicCatalog } : undefined), [direct]);
  const chat = createElement('div', { style: { height: '100vh' } }, createElement(CopilotChat, {}));
  return direct
    ? createElement(CopilotKit, { agents__unsafe_dev_only: agents as never, a2ui, children: chat })
    : createElement(CopilotKit, { runtimeUrl: query.get('runtime')!, children: chat });
}

createRoot(document.getElementById('root')!).render(createElement(App));
