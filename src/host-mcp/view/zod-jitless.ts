/*
 * First import of the view's entry (main.ts): zod 4 without its JIT before any other module
 * evaluates. zod 4.6 probes `new Function("")` (is eval allowed?) when it builds an object
 * schema, unless `jitless` is set; under the view's CSP (no 'unsafe-eval') the probe fails
 * quietly, but the browser still reports a script-src violation. The ext-apps App turns the JIT
 * off in its constructor (`allowUnsafeEval: false`), which is too late: @modelcontextprotocol/core
 * builds its schemas when its module evaluates, on import. Same zod instance as the SDK's ("zod/v4"
 * of the one zod 4 installed; web_core's zod 3 never probes).
 */
import { config } from 'zod/v4';

config({ jitless: true });
