export * as pointer from './pointer.ts';
export {
  canonicaliseDataPath, DATA_KEY_PATTERN, escapeToken, formatPointer, getAt, isPlainObject, isSafeDataKey, jsonEqual,
  NAMESPACES, parsePointer, unescapeToken,
} from './pointer.ts';
export type { DataPath, Namespace } from './pointer.ts';
export * from './schema.ts';
export { blockKey, stableId, walkBlocks } from './ids.ts';
export {
  collectionBlocks, findListBlock, findShownItem, isCollectionBlock, listBlocks, listItems, listsOffering, pathTokens, shownItems, tableBlocks, touchesList,
} from './collections.ts';
export { cellDate, cellNumber, TABLE_ACTIONS_NAMES, tablePage, tableState, TableState, tableStateTokens, withTableState } from './tables.ts';
export type { TablePage } from './tables.ts';
export type { CollectionBlock, CollectionSource, ListItem, ListItems } from './collections.ts';
export { COLLECTION_PROPS, RESERVED_PROP_NAMES } from './component-props.ts';
export {
  createRandomTokens, createRecordingSource, createReplaySource, createSeededSource, createSystemSource, draw,
} from './source.ts';
export type { Draw, EntropySource, RecordedDraw } from './source.ts';
export {
  addToast, appendTranscript, closeSurface, commitSurface, emptyConversation, expireSurface,
  findLiveSurface, findSurface, openSurface, panelFor, patchSurfaceData, resetSurfaceEpoch, sameForm, surfaceToast, viewHasInputs, writeListItems, writeTableState,
} from './transitions.ts';
export type { DataOp, OpenSurfaceParams, TransitionResult } from './transitions.ts';
export { isValidConversationIr, isValidTranscript } from './validate.ts';
export { addedTranscriptEntries, createGrowthMemo } from './transcript.ts';
export type { GrowthMemo } from './transcript.ts';
export {
  allOf, DATE_REGEX, EMAIL_REGEX, failedRule, FieldPattern, fieldPatterns, fieldRules, HTTP_URL, ISO_DATE, NOT_BLANK_REGEX, NUMBER_REGEX, onStep, patternProblem,
  splitChoices, URL_REGEX, wholeMatch,
} from './field-rules.ts';
export type { FieldRule, FieldRuleName, RuledField } from './field-rules.ts';
