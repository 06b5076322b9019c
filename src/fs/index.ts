export { expandPath, resolveToolPath, screenshotNameAlternative, isBlockedDevicePath, displayPath } from "./path.js";
export {
  detectEncoding,
  decodeText,
  decodeWith,
  encodeText,
  encodeTextChunks,
  canEncode,
  bomLength,
  detectLineEnding,
  toCrlf,
  looksBinary,
  UTF8,
} from "./encoding.js";
export type { TextEncodingName, TextFormat, LineEnding } from "./encoding.js";
export { atomicWriteFile, WriteTargetChangedError } from "./atomic-write.js";
export type { AtomicWriteHooks, AtomicWriteOptions } from "./atomic-write.js";
export { withFileLock, withFileLockFor, lockKey } from "./file-lock.js";
export {
  sha256,
  recordRead,
  judgeFreshness,
  NOT_READ_MESSAGE,
  STATE_CURRENT_SUFFIX,
  MODIFIED_MESSAGE,
} from "./file-state.js";
export type { Freshness } from "./file-state.js";
export { suggestSimilarFiles, missingFileMessage, nameSimilarity, editDistance } from "./similar-files.js";
export { loadForWrite, writeTextFile, MAX_EDIT_FILE_BYTES } from "./text-file.js";
export type { WriterOptions, ExistingText, WrittenText } from "./text-file.js";
export { diffHunks, commonPrefixLength, commonSuffixLength } from "./patch.js";
export { numberedSnippet } from "./snippet.js";
export { parseNotebook, joinSource, splitSource, cellId, findCell, notebookLanguage, detectJsonIndent } from "./notebook.js";
export type { Notebook, NotebookCell, NotebookOutput } from "./notebook.js";
export { recordWindow, addRange } from "./read-coverage.js";
export { filePathMembers } from "./path-members.js";
