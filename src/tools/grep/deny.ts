import type { ReadDenyFilter } from "../search/deny.js";
import { createBuiltinEngine } from "./builtin/engine.js";
import type { GrepEngine, GrepQuery, GrepSink } from "./types.js";

const NOTHING: GrepEngine["search"] = async () => {};

/**
 * The engine for one search under Read deny rules. Denied files are kept out at the source:
 * ripgrep gets `--iglob !…` exclusions (or, when a rule cannot be said in ripgrep's glob
 * syntax, the built-in engine runs instead), the built-in walk skips denied folders and files.
 * Whatever comes back is checked again with the permission engine's matcher, so a denied
 * file never shows up by name, line or count. Nothing in the result says something was left out.
 */
export function withReadDenyRules(engine: GrepEngine, query: GrepQuery, deny: ReadDenyFilter | undefined): GrepEngine {
  if (!deny) return engine;
  if (deny.denies(query.root)) return { name: engine.name, search: NOTHING };
  let inner = engine;
  if (engine.name === "ripgrep" && !query.rootIsFile) {
    const excludes = deny.ripgrepExcludes(query.root);
    if (excludes === undefined) inner = createBuiltinEngine();
    else query.excludeGlobs = excludes;
  }
  query.skip = (path, isDir) => deny.denies(path, isDir ? "dir" : "file");
  return {
    name: inner.name,
    search: (q, sink) => inner.search(q, withoutDenied(q, sink, deny)),
  };
}

/** Drops entries of denied files, and the context separators they would leave dangling. */
function withoutDenied(query: GrepQuery, sink: GrepSink, deny: ReadDenyFilter): GrepSink {
  let emitted = false;
  let separator = false;
  return (entry) => {
    if (entry.kind === "separator") {
      separator = emitted;
      return true;
    }
    // The search root was checked above by its real kind; what the engines report below it is never a symlink.
    if (entry.path !== query.root && deny.denies(entry.path, "file")) return true;
    if (separator) {
      separator = false;
      if (!sink({ kind: "separator" })) return false;
    }
    emitted = true;
    return sink(entry);
  };
}
