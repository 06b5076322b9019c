export type GrepOutputMode = "content" | "files_with_matches" | "count";

/** What one search asks of an engine: the tool's input, resolved and normalised. */
export interface GrepQuery {
  pattern: string;
  /** Absolute file or folder to search. */
  root: string;
  rootIsFile: boolean;
  mode: GrepOutputMode;
  caseInsensitive: boolean;
  /** `-o`: print only the matched parts (content mode). */
  onlyMatching: boolean;
  /** `-U --multiline-dotall`. */
  multiline: boolean;
  /** Context lines (content mode). */
  before: number;
  after: number;
  /** `--glob` values, already split. */
  globs: string[];
  type?: string;
  signal: AbortSignal;
  /**
   * Read deny rules as ripgrep `--iglob` values (`!…`, relative to the search folder): paths
   * ripgrep must not open. Only the ripgrep engine reads this; the built-in one uses `skip`.
   */
  excludeGlobs?: string[];
  /** Paths the built-in walk must not enter or search (Read deny rules); `isDir` = not a symlink, a folder. */
  skip?: (path: string, isDir: boolean) => boolean;
}

/** One unit of output, in output order. Paths are absolute. */
export type GrepEntry =
  | { kind: "file"; path: string }
  | { kind: "count"; path: string; count: number }
  | { kind: "line"; path: string; line: number; match: boolean; text: string }
  | { kind: "separator" }
  /** ripgrep's note for a file given explicitly that turns out binary (content mode). */
  | { kind: "note"; path: string; text: string };

/** Receives entries in order; returning false stops the search. */
export type GrepSink = (entry: GrepEntry) => boolean;

export interface GrepEngine {
  readonly name: "ripgrep" | "builtin";
  search(query: GrepQuery, sink: GrepSink): Promise<void>;
}

/** A search the engine refused (bad regex, glob or type): the message is shown to the model. */
export class GrepSearchError extends Error {
  override name = "GrepSearchError";
}

/** ripgrep's column cap; longer lines are replaced by a marker. */
export const MAX_COLUMNS = 500;
