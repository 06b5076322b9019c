import { compileOverrides } from "../../search/gitignore.js";
import { GrepSearchError, type GrepEngine, type GrepQuery, type GrepSink } from "../types.js";
import { fileTypeMatcher } from "./file-types.js";
import { compileSearchRegex } from "./regex.js";
import { searchFile, type FileSearch } from "./search-file.js";
import { walkSearchFiles } from "./walk.js";

/** Files searched at once in files and count modes (content mode goes in order). */
const CONCURRENCY = 8;

/**
 * The pure-JavaScript search used when ripgrep is not installed: the same options, the same
 * entries in the same order (content mode follows ripgrep's `--sort path`), slower.
 */
export function createBuiltinEngine(): GrepEngine {
  return { name: "builtin", search: builtinSearch };
}

async function builtinSearch(query: GrepQuery, sink: GrepSink): Promise<void> {
  for (const glob of query.globs) checkGlob(glob);
  let typeFilter: ((name: string) => boolean) | undefined;
  if (query.type !== undefined) {
    typeFilter = fileTypeMatcher(query.type);
    if (!typeFilter) throw new GrepSearchError(`unrecognized file type: ${query.type}`);
  }
  const regex = compileSearchRegex(query.pattern, { caseInsensitive: query.caseInsensitive, multiline: query.multiline });
  let stopped = false;
  const printed = { any: false };
  const guardedSink: GrepSink = (entry) => {
    if (stopped) return false;
    if (!sink(entry)) stopped = true;
    return !stopped;
  };
  const makeSearch = (explicit = false): FileSearch => ({
    regex: new RegExp(regex.source, regex.flags),
    mode: query.mode,
    onlyMatching: query.onlyMatching && query.mode === "content",
    multiline: query.multiline,
    before: query.mode === "content" ? query.before : 0,
    after: query.mode === "content" ? query.after : 0,
    sink: guardedSink,
    explicit,
    printed,
  });
  if (query.rootIsFile) {
    await searchFile(query.root, makeSearch(true));
    return;
  }
  const files = walkSearchFiles({ root: query.root, overrides: compileOverrides(query.globs), typeFilter, signal: query.signal, skip: query.skip });
  if (query.mode === "content") {
    const search = makeSearch();
    for await (const file of files) {
      if (!(await searchFile(file, search)) || stopped) return;
    }
    return;
  }
  // Order does not matter here (the tool sorts): a few files at a time.
  const running = new Set<Promise<void>>();
  for await (const file of files) {
    if (stopped) break;
    const task: Promise<void> = searchFile(file, makeSearch()).then(() => {
      running.delete(task);
    });
    running.add(task);
    if (running.size >= CONCURRENCY) await Promise.race(running);
  }
  await Promise.all(running);
  query.signal.throwIfAborted();
}

/** The glob errors ripgrep reports, in its words. */
function checkGlob(glob: string): void {
  let braces = 0;
  let inClass = false;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      continue;
    }
    if (ch === "[") inClass = true;
    else if (ch === "{") braces++;
    else if (ch === "}" && braces > 0) braces--;
  }
  if (inClass) throw new GrepSearchError(`error parsing glob '${glob}': unclosed character class; missing ']'`);
  if (braces > 0) throw new GrepSearchError(`error parsing glob '${glob}': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)`);
}
