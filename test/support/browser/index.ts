export { createConsoleLog, failedLoad, type ConsoleEntry, type ConsoleLog } from './console-log.ts';
export { findChromium, isExecutableFile, type ChromiumProbes, type FoundChromium } from './find-chromium.ts';
export { CHROMIUM_ARGS, launchChromium, noChromiumReason } from './launch.ts';
export { fontconfigXml, unpackNpmChromium, type ChromiumExtractor } from './npm-chromium.ts';
export { chromiumSuite, closedNetwork, CSP_VIOLATIONS, type ChromiumSuite } from './chromium-suite.ts';
