export { createConsoleLog, failedLoad, type ConsoleEntry, type ConsoleLog } from './console-log.ts';
export { findChromium, isExecutableFile, type ChromiumProbes, type FoundChromium } from './find-chromium.ts';
export { CHROMIUM_ARGS, launchChromium } from './launch.ts';
export { fontconfigXml, unpackNpmChromium, type ChromiumExtractor } from './npm-chromium.ts';
