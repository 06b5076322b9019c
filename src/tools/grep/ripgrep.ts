import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { startFailure } from "../../fs/errno.js";
import { findExecutable } from "../util/find-executable.js";
import { engineCommand } from "../../sandbox/engine-process.js";
import { buildRipgrepArgs } from "./args.js";
import { GrepSearchError, type GrepEngine, type GrepEntry, type GrepQuery, type GrepSink } from "./types.js";

export { findExecutable };

const MAX_STDERR = 64 * 1024;

/**
 * Runs the system `rg` (an argument array, never a shell) and streams its output into entries.
 * The child is killed as soon as the sink has enough, or when the call is aborted.
 */
export function createRipgrepEngine(binary: string): GrepEngine {
  return {
    name: "ripgrep",
    search: (query, sink) => runRipgrep(binary, query, sink),
  };
}

function runRipgrep(binary: string, query: GrepQuery, sink: GrepSink): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    query.signal.throwIfAborted();
    // Globs with a slash are relative to rg's cwd: make that the search folder.
    const cwd = query.rootIsFile ? dirname(query.root) : query.root;
    const { run, unmap } = canonicalRun(query, cwd);
    const where = run.rootIsFile ? cwd : run.root;
    // Read-only where the sandbox runs: ripgrep only reads, and a file it searches cannot change that.
    const cmd = engineCommand(binary, buildRipgrepArgs(run), { cwd: where });
    // Its own process group, so that stopping it reaches a sandbox's inner processes as well.
    const child = cmd
      ? spawn(cmd.file, cmd.args, { cwd: where, env: cmd.env, stdio: ["ignore", "pipe", "pipe"], windowsHide: true, detached: true })
      : spawn(binary, buildRipgrepArgs(run), { cwd: where, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    // Out of descriptors (EMFILE, ENFILE) spawn makes no pipes and reports on the next tick:
    // listened to before anything else, so that it is this call's error, never the process's.
    child.on("error", (err) => {
      query.signal.removeEventListener("abort", onAbort);
      reject(startFailure("ripgrep", err));
    });
    if (!child.stdout || !child.stderr) return;
    const parser = new RipgrepOutputParser(query.mode === "files_with_matches" ? "files" : query.mode === "count" ? "count" : "content");
    const decoder = new StringDecoder("utf8");
    let stopped = false;
    let produced = 0;
    let stderr = "";
    function onAbort(): void {
      stop();
    }
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      child.stdout.removeAllListeners("data");
      if (cmd && child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      } else child.kill("SIGKILL");
    };
    query.signal.addEventListener("abort", onAbort, { once: true });
    const deliver = (entries: GrepEntry[]): void => {
      for (const entry of entries) {
        produced++;
        if (unmap && "path" in entry) entry.path = unmap(entry.path);
        if (!sink(entry)) {
          stop();
          return;
        }
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      if (!stopped) deliver(parser.push(decoder.write(chunk)));
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR) stderr += chunk.toString("utf8");
    });
    child.on("close", (code) => {
      query.signal.removeEventListener("abort", onAbort);
      if (query.signal.aborted) return reject(query.signal.reason);
      if (!stopped) deliver(parser.push(decoder.end(), true));
      if (stopped || code === 0 || code === 1) return resolve();
      // Exit 2 is an error; with output in hand it was about some files (unreadable, vanished).
      if (produced > 0) return resolve();
      reject(new GrepSearchError(stderr.trim() || `ripgrep exited with code ${code}`));
    });
  });
}

/**
 * ripgrep anchors globs at its working directory as the kernel names it (symlinks resolved),
 * and matches them only against paths below it. When the search folder is reached through a
 * symlink and exclusion globs must hold, search the canonical folder and give the paths back
 * under the name the caller used.
 */
function canonicalRun(query: GrepQuery, cwd: string): { run: GrepQuery; unmap?: (path: string) => string } {
  if (query.rootIsFile || (query.excludeGlobs ?? []).length === 0) return { run: query };
  let real: string;
  try {
    real = realpathSync.native(cwd);
  } catch {
    return { run: query };
  }
  if (real === cwd) return { run: query };
  const unmap = (path: string): string => (path === real ? cwd : path.startsWith(real === "/" ? "/" : `${real}/`) ? cwd + (real === "/" ? path : path.slice(real.length)) : path);
  return { run: { ...query, root: real }, unmap };
}

const BINARY_NOTE = /^(.*?): (binary file matches \(found .* byte around offset \d+\))$/;

/**
 * Parses `rg --null --with-filename` output. Every path rg prints starts with "/" (the search
 * root is absolute) and ends with NUL, so paths containing ":" or newlines parse exactly;
 * anything else at the start of a record is the `--` context separator.
 */
export class RipgrepOutputParser {
  private buffer = "";

  constructor(private readonly mode: "files" | "content" | "count") {}

  push(text: string, end = false): GrepEntry[] {
    this.buffer += text;
    const out: GrepEntry[] = [];
    let pos = 0;
    const buf = this.buffer;
    for (;;) {
      if (pos >= buf.length) break;
      if (this.mode === "files") {
        const nul = buf.indexOf("\0", pos);
        if (nul < 0) break;
        out.push({ kind: "file", path: buf.slice(pos, nul) });
        pos = nul + 1;
        continue;
      }
      if (buf[pos] !== "/") {
        const nl = buf.indexOf("\n", pos);
        if (nl < 0) break;
        out.push({ kind: "separator" });
        pos = nl + 1;
        continue;
      }
      const nul = buf.indexOf("\0", pos);
      const eol = buf.indexOf("\n", pos);
      if (eol >= 0 && (nul < 0 || eol < nul)) {
        // A line without a NUL: "<path>: binary file matches (found "\0" byte around offset N)".
        // (Anything else is a path with a newline in it, parsed below.)
        const note = BINARY_NOTE.exec(buf.slice(pos, eol));
        if (note) {
          out.push({ kind: "note", path: note[1]!, text: note[2]! });
          pos = eol + 1;
          continue;
        }
      }
      if (nul < 0) break;
      const nl = buf.indexOf("\n", nul + 1);
      if (nl < 0) break;
      const path = buf.slice(pos, nul);
      const rest = buf.slice(nul + 1, nl);
      pos = nl + 1;
      if (this.mode === "count") {
        out.push({ kind: "count", path, count: Number(rest) });
        continue;
      }
      const m = /^(\d+)([:-])/.exec(rest);
      if (!m) continue;
      out.push({ kind: "line", path, line: Number(m[1]), match: m[2] === ":", text: rest.slice(m[0].length) });
    }
    this.buffer = buf.slice(pos);
    if (end) this.buffer = "";
    return out;
  }
}
