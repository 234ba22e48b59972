export { createFileCardLibrary } from './file-library.ts';
export { createRecordCardLibrary, parseSavedCard } from './record-library.ts';
export { createCardIndex, createMemoryCardLibrary, SavedCard } from './library.ts';
export type { CardLibrary, SaveRequest } from './library.ts';
