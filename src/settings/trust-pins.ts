import { createHash } from "node:crypto";
import { readdir, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { readConfigBytes } from "./read-config-file.js";

/**
 * What a project's hook and MCP command lines run, to pin by content: the program and the
 * script an interpreter is given, after a `cd`, through a glob, `python -m module`, the targets
 * of `npm run`/`npx`/`make` (package.json, the Makefile), and what those scripts
 * `require`/`import`/`source` inside the project, in a bounded walk. Where a line or a script
 * cannot be followed, the script's whole directory is pinned instead, and `unpinned` says what
 * could not be pinned at all. Files a command merely writes or reads are not pinned (a log
 * would untrust the project on every run).
 */
export interface PinSet {
  /** Files, relative to the project (or absolute when a link leads out of it), each its sha256. */
  files: Map<string, string>;
  /** Directories pinned whole (relative), each one hash over its files. */
  dirs: Map<string, string>;
  /** What could not be pinned, in words, for the trust screen. */
  unpinned: string[];
}

/** Bounds of the walk: files followed, files hashed in a pinned directory, its depth. */
export const PIN_MAX_FILES = 200;
export const PIN_DIR_MAX_FILES = 500;
const PIN_DIR_MAX_DEPTH = 4;
const SCRIPT_MAX_BYTES = 1024 * 1024;

/** Programs that run the file named by their first operand. */
const INTERPRETERS = new Set([
  "sh", "bash", "zsh", "dash", "ksh", "fish", "node", "nodejs", "deno", "bun", "tsx", "ts-node",
  "python", "python3", "python2", "pypy", "pypy3", "ruby", "perl", "php", "lua", "Rscript", "osascript", "pwsh", "source", ".",
]);
const PYTHONS = /^(python[0-9.]*|pypy3?)$/;
const WRAPPERS = new Set(["env", "exec", "command", "nohup", "time", "nice", "timeout", "xargs"]);

const sha = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

const hasGlob = (w: string): boolean => /[*?[]/.test(w);

/** Simple commands of a line, each its words (quotes removed, assignments dropped). */
function simpleCommands(line: string): string[][] {
  return line
    .split(/;|&&|\|\||\||\n|&|\(|\)|`|\$\(/)
    .map((simple) =>
      simple
        .split(/\s+/)
        .map((w) => w.replace(/["'\\]/g, ""))
        .filter((w) => w !== "" && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) && !/^[<>]/.test(w)),
    )
    .filter((words) => words.length > 0);
}

interface Walk {
  project: string;
  pins: PinSet;
  queue: Array<{ abs: string; why: string }>;
  seen: Set<string>;
}

function note(walk: Walk, text: string): void {
  if (!walk.pins.unpinned.includes(text)) walk.pins.unpinned.push(text);
}

/** A word naming a file: the project's when it resolves inside it; undefined for a command on the PATH. */
async function projectFile(word: string, base: string, project: string): Promise<{ real: string; kind: "file" | "dir" } | undefined> {
  const abs = resolve(base, word);
  if (!isInside(abs, project)) return undefined;
  try {
    const real = await realpath(abs);
    const info = await stat(real);
    if (info.isFile()) return { real, kind: "file" };
    if (info.isDirectory()) return { real, kind: "dir" };
  } catch {
    // not there (yet): a command on the PATH, or a script that does not exist
  }
  return undefined;
}

function rel(walk: Walk, real: string): string {
  return isInside(real, walk.project) ? relative(walk.project, real) || "." : real;
}

async function pinDir(walk: Walk, dir: string, why: string): Promise<void> {
  const key = rel(walk, dir);
  if (walk.pins.dirs.has(key)) return;
  if (dir === walk.project) {
    // Pinning the whole project would untrust it on every edit (and every log a hook writes).
    note(walk, `${why}: its folder is the project itself, which is not pinned whole`);
    return;
  }
  const parts: string[] = [];
  let count = 0;
  let capped = false;
  const visit = async (d: string, depth: number): Promise<void> => {
    const names = (await readdir(d).catch(() => [] as string[])).filter((n) => n !== ".git" && n !== "node_modules").sort();
    for (const name of names) {
      if (count >= PIN_DIR_MAX_FILES) {
        capped = true;
        return;
      }
      const path = join(d, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isDirectory()) {
        if (depth < PIN_DIR_MAX_DEPTH) await visit(path, depth + 1);
        else capped = true;
      } else if (info?.isFile()) {
        count++;
        const bytes = await readConfigBytes(path, SCRIPT_MAX_BYTES).catch(() => undefined);
        parts.push(`${relative(dir, path)}\0${bytes === undefined ? "unreadable" : sha(bytes)}`);
      }
    }
  };
  await visit(dir, 0);
  walk.pins.dirs.set(key, sha(parts.join("\n")));
  if (capped) note(walk, `${key}/ is pinned only in part (${why}; more than ${PIN_DIR_MAX_FILES} files or ${PIN_DIR_MAX_DEPTH} levels)`);
}

function enqueue(walk: Walk, abs: string, why: string): void {
  if (walk.seen.has(abs)) return;
  walk.seen.add(abs);
  walk.queue.push({ abs, why });
}

/** The words of one simple command that name what it runs, with `cd` followed for the rest of the line. */
async function commandTargets(walk: Walk, words: string[], cwd: { dir: string }, line: string): Promise<void> {
  let i = 0;
  while (i < words.length && WRAPPERS.has(words[i]!.slice(words[i]!.lastIndexOf("/") + 1))) {
    i++;
    while (i < words.length && words[i]!.startsWith("-")) i++;
  }
  const program = words[i];
  if (program === undefined) return;
  const name = program.slice(program.lastIndexOf("/") + 1);
  const rest = words.slice(i + 1);
  const unknown = (w: string): boolean => w.includes("$") || w.startsWith("~");
  if (name === "cd" || name === "pushd") {
    const target = rest.find((w) => !w.startsWith("-"));
    if (target === undefined || unknown(target)) {
      note(walk, `\`${line}\`: a cd to ${target ?? "home"} is not followed; what runs after it is not pinned`);
      cwd.dir = "";
    } else cwd.dir = resolve(cwd.dir || walk.project, target);
    return;
  }
  if (cwd.dir === "") return; // after a cd we could not follow
  const named: string[] = [program];
  if (INTERPRETERS.has(name)) {
    const operands = rest.filter((w) => !w.startsWith("-"));
    const m = rest.indexOf("-m");
    if (PYTHONS.test(name) && m >= 0 && rest[m + 1] !== undefined) {
      await pythonModule(walk, rest[m + 1]!, cwd.dir, line);
    } else if (!(name === "node" && rest.some((w) => w === "-e" || w === "--eval" || w === "-p")) && !(PYTHONS.test(name) && rest.includes("-c")) && operands[0] !== undefined) {
      named.push(operands[0]);
    }
  }
  if (name === "npm" || name === "yarn" || name === "pnpm" || name === "bun" || name === "npx" || name === "pnpx") await packageScripts(walk, name, rest, cwd.dir, line);
  if (name === "make" || name === "gmake") await makefile(walk, rest, cwd.dir, line);
  for (const word of named) {
    if (unknown(word)) {
      if (word === program || INTERPRETERS.has(name)) note(walk, `\`${line}\`: ${word} is not known before the command runs`);
      continue;
    }
    if (hasGlob(word)) {
      const fixed = word.slice(0, word.search(/[*?[]/));
      const base = resolve(cwd.dir, fixed.endsWith("/") || fixed === "" ? fixed || "." : dirname(fixed));
      if (isInside(base, walk.project)) await pinDir(walk, await realpath(base).catch(() => base), `the glob ${word}`);
      continue;
    }
    const found = await projectFile(word, cwd.dir, walk.project);
    if (found?.kind === "file") enqueue(walk, found.real, `run by \`${line}\``);
  }
}

async function pythonModule(walk: Walk, mod: string, base: string, line: string): Promise<void> {
  const path = mod.split(".").join("/");
  for (const candidate of [`${path}.py`, path]) {
    const found = await projectFile(candidate, base, walk.project);
    if (found?.kind === "file") return enqueue(walk, found.real, `python -m ${mod}`);
    if (found?.kind === "dir") return pinDir(walk, found.real, `python -m ${mod}`);
  }
  if (!/^[\w.]+$/.test(mod)) note(walk, `\`${line}\`: the module ${mod} is not known before the command runs`);
}

/** `npm run x`, `npm test`, `npx tool`: package.json's scripts run; pin the file and follow the script's command line. */
async function packageScripts(walk: Walk, tool: string, args: string[], base: string, line: string): Promise<void> {
  const found = await projectFile("package.json", base, walk.project);
  if (found?.kind !== "file") {
    if (tool === "npx" || tool === "pnpx") note(walk, `\`${line}\`: ${tool} may fetch and run a package from the registry; that is not pinned`);
    return;
  }
  enqueue(walk, found.real, `the scripts of \`${line}\``);
  let scripts: Record<string, unknown> = {};
  try {
    const json = JSON.parse((await readConfigBytes(found.real, SCRIPT_MAX_BYTES)).toString("utf8")) as { scripts?: unknown };
    if (json.scripts !== null && typeof json.scripts === "object") scripts = json.scripts as Record<string, unknown>;
  } catch {
    // not JSON: its bytes are pinned
  }
  const operands = args.filter((a) => !a.startsWith("-"));
  if (tool === "npx" || tool === "pnpx") {
    // A local bin (node_modules/.bin) is not shipped in git; anything else comes from the registry.
    await pinDir(walk, join(dirname(found.real), "node_modules", ".bin"), `${tool}'s local programs`).catch(() => undefined);
    note(walk, `\`${line}\`: ${tool} ${operands[0] ?? ""} runs an installed or downloaded package; only package.json is pinned`);
    return;
  }
  const target = operands[0] === "run" || operands[0] === "run-script" ? operands[1] : operands[0];
  const lifecycle = new Set(["test", "start", "stop", "restart"]);
  if (target === undefined || (operands[0] !== "run" && operands[0] !== "run-script" && !lifecycle.has(target) && tool === "npm")) return;
  for (const key of [`pre${target}`, target, `post${target}`]) {
    const cmd = scripts[key];
    if (typeof cmd === "string") for (const words of simpleCommands(cmd)) await commandTargets(walk, words, { dir: dirname(found.real) }, cmd);
  }
}

/** `make [target]`: the Makefile is pinned, and the files its recipes run are followed. */
async function makefile(walk: Walk, args: string[], base: string, line: string): Promise<void> {
  let dir = base;
  const c = args.indexOf("-C");
  if (c >= 0 && args[c + 1] !== undefined) dir = resolve(base, args[c + 1]!);
  const f = args.findIndex((a) => a === "-f" || a === "--file");
  const names = f >= 0 && args[f + 1] !== undefined ? [args[f + 1]!] : ["GNUmakefile", "makefile", "Makefile"];
  for (const name of names) {
    const found = await projectFile(name, dir, walk.project);
    if (found?.kind !== "file") continue;
    enqueue(walk, found.real, `the Makefile of \`${line}\``);
    // Recipes may include other makefiles and call anything: the Makefile's folder is pinned too.
    await pinDir(walk, dirname(found.real), `make's recipes`);
    return;
  }
}

const JS_IMPORT = /\b(?:require|import)\s*\(\s*(['"`])([^'"`]+)\1\s*\)|\bimport\s+(?:[\w*{}\s,]+\s+from\s+)?(['"])([^'"]+)\3|\bexport\s+[\w*{}\s,]+\s+from\s+(['"])([^'"]+)\5/g;
const JS_DYNAMIC = /\b(?:require|import)\s*\(\s*[^'"`\s)]/;
const PY_IMPORT = /^\s*(?:from\s+(\.*[\w.]*)\s+import\s+([\w, *]+)|import\s+([\w., ]+))/gm;
const SH_SOURCE = /(?:^|[;&|]\s*|\s)(?:source|\.)\s+([^\s;&|]+)/gm;

/** Files a script pulls in, relative ones only; `follow: false` when it does something we cannot follow. */
function scriptImports(path: string, text: string): { refs: string[]; python: string[]; follow: boolean } {
  const refs: string[] = [];
  const python: string[] = [];
  let follow = true;
  const ext = path.slice(path.lastIndexOf(".") + 1);
  const firstLine = text.slice(0, text.indexOf("\n") >>> 0);
  const shell = /^(sh|bash|zsh|ksh|dash)$/.test(ext) || /^#!.*\b(sh|bash|zsh|ksh|dash)\b/.test(firstLine);
  const js = /^(js|mjs|cjs|ts|mts|cts|jsx|tsx)$/.test(ext) || /^#!.*\b(node|deno|bun|tsx)\b/.test(firstLine);
  const py = ext === "py" || /^#!.*\bpython/.test(firstLine);
  if (js) {
    for (const m of text.matchAll(JS_IMPORT)) {
      const spec = m[2] ?? m[4] ?? m[6] ?? "";
      if (spec.startsWith(".") || spec.startsWith("/")) refs.push(spec);
    }
    if (JS_DYNAMIC.test(text)) follow = false;
  } else if (py) {
    for (const m of text.matchAll(PY_IMPORT)) {
      if (m[1] !== undefined) {
        const base = m[1].replace(/^\.+/, "");
        python.push(base === "" ? m[2]!.split(",")[0]!.trim() : base);
      } else for (const mod of m[3]!.split(",")) python.push(mod.trim().split(/\s+/)[0]!);
    }
    if (/\b(__import__|importlib|exec|runpy)\b/.test(text)) follow = false;
  } else if (shell) {
    for (const m of text.matchAll(SH_SOURCE)) {
      const word = m[1]!.replace(/["']/g, "");
      if (word.includes("$") || word.includes("`")) follow = false;
      else refs.push(word);
    }
  } else follow = false; // another language (ruby, perl, a binary…): its imports are not read
  return { refs, python, follow };
}

const JS_EXTENSIONS = ["", ".js", ".mjs", ".cjs", ".ts", ".mts", ".json", "/index.js", "/index.mjs", "/index.ts"];

async function followScript(walk: Walk, abs: string, why: string): Promise<void> {
  let bytes: Buffer;
  try {
    bytes = await readConfigBytes(abs, SCRIPT_MAX_BYTES);
  } catch (err) {
    walk.pins.files.set(rel(walk, abs), `unreadable: ${(err as Error).message}`);
    note(walk, `${rel(walk, abs)} (${why}) could not be read to pin it`);
    return;
  }
  walk.pins.files.set(rel(walk, abs), sha(bytes));
  if (!isInside(abs, walk.project) || abs.endsWith("package.json") || /(^|\/)(GNUmakefile|makefile|Makefile)$/.test(abs)) return;
  const dir = dirname(abs);
  const { refs, python, follow } = scriptImports(abs, bytes.toString("utf8"));
  if (!follow) await pinDir(walk, dir, `${rel(walk, abs)} loads code in ways not followed`);
  for (const ref of refs) {
    let done = false;
    for (const ext of JS_EXTENSIONS) {
      // A sourced shell file is found from the working dir as well as from the script's folder.
      for (const base of [dir, walk.project]) {
        const found = await projectFile(ref + ext, base, walk.project);
        if (found?.kind === "file") {
          enqueue(walk, found.real, `loaded by ${rel(walk, abs)}`);
          done = true;
          break;
        }
      }
      if (done) break;
    }
  }
  for (const mod of python) {
    const path = mod.split(".").join("/");
    for (const candidate of [`${path}.py`, `${path}/__init__.py`]) {
      const found = await projectFile(candidate, dir, walk.project);
      if (found?.kind === "file") {
        enqueue(walk, found.real, `imported by ${rel(walk, abs)}`);
        if (candidate.endsWith("__init__.py")) await pinDir(walk, dirname(found.real), `the package ${mod}`);
        break;
      }
    }
  }
}

/** Everything the command lines run inside the project, pinned by content. */
export async function pinCommandLines(lines: readonly string[], project: string): Promise<PinSet> {
  const walk: Walk = { project, pins: { files: new Map(), dirs: new Map(), unpinned: [] }, queue: [], seen: new Set() };
  for (const raw of lines) {
    const line = raw.replace(/\$\{?(ARMATURE_PROJECT_DIR|CLAUDE_PROJECT_DIR)\}?/g, project);
    const cwd = { dir: project };
    for (const words of simpleCommands(line)) await commandTargets(walk, words, cwd, raw.length > 120 ? `${raw.slice(0, 117)}...` : raw);
  }
  let followed = 0;
  while (walk.queue.length > 0) {
    const next = walk.queue.shift()!;
    if (followed++ >= PIN_MAX_FILES) {
      note(walk, `more than ${PIN_MAX_FILES} files are reached from the hooks and MCP servers; the rest are not pinned`);
      break;
    }
    await followScript(walk, next.abs, next.why);
  }
  walk.pins.unpinned.sort();
  return walk.pins;
}
