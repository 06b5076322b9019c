import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { describeWidening, wideningValues } from "./project-policy.js";

/**
 * Workspace trust, like `direnv allow`: a project directory's own configuration may only
 * restrict until the user trusts it. Trust is recorded in the user's config dir with a
 * fingerprint of the directory's security-relevant configuration, and holds only while that
 * fingerprint is unchanged.
 */

/** The project files whose widening content is pinned by trust, relative to the project. */
export const PROJECT_CONFIG_FILES = [
  ".armature/settings.json",
  ".armature/settings.local.json",
  ".claude/settings.json",
  ".claude/settings.local.json",
] as const;
/** The project's MCP server file: pinned as a whole. */
export const PROJECT_MCP_FILE = ".mcp.json";

export interface TrustOptions {
  /** Home directory (default: the user's). */
  home?: string;
  /** User settings directory, where trust.json lives (default: env ARMATURE_CONFIG_DIR, else ~/.armature). */
  userDir?: string;
}

export interface ProjectFingerprint {
  /** The directory's real path (symlinks resolved). */
  dir: string;
  /** One hash over every entry. */
  hash: string;
  /** What was pinned, by name (`.armature/settings.json: hooks`, `script hooks/pre.sh`, `.mcp.json`), each its hash. */
  entries: Record<string, string>;
  /** For the user who trusts it: each pinned entry's value in short (`"./rootlink" → /`). Not part of the hash. */
  shown?: Record<string, string>;
}

export interface TrustRecord extends ProjectFingerprint {
  trustedAt: string;
}

export type TrustState = "trusted" | "untrusted" | "changed" | "override";

export interface TrustStatus {
  /** The directory's real path. */
  dir: string;
  /** Whether its own configuration may widen (hooks, allow rules, env, MCP servers, …). */
  trusted: boolean;
  /**
   * `trusted`: recorded and unchanged; `override`: trusted for this run by an option or flag;
   * `untrusted`: never trusted (or revoked); `changed`: trusted once, but its configuration changed.
   */
  state: TrustState;
  /** For `changed`: what changed since it was trusted (`hooks in .armature/settings.json changed`, …). */
  changes: string[];
}

export function trustStorePath(options: TrustOptions = {}): string {
  const dir = options.userDir ?? process.env.ARMATURE_CONFIG_DIR ?? join(options.home ?? homedir(), ".armature");
  return join(dir, "trust.json");
}

const sha = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch {
    return undefined;
  }
}

async function realDir(dir: string): Promise<string> {
  try {
    return await realpath(resolve(dir));
  } catch {
    return resolve(dir);
  }
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Every command line of hook handlers and MCP server definitions: `command` with its `args`. */
function commandLines(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) commandLines(v, out);
  else if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (typeof o.command === "string") {
      const args = Array.isArray(o.args) ? o.args.filter((a): a is string => typeof a === "string") : [];
      out.push([o.command, ...args.map((a) => `'${a}'`)].join(" "));
    }
    for (const [k, v] of Object.entries(o)) if (k !== "command" && k !== "args") commandLines(v, out);
  }
  return out;
}

/** Programs that run the file named by their first operand. */
const INTERPRETERS = new Set([
  "sh", "bash", "zsh", "dash", "ksh", "fish", "node", "nodejs", "deno", "bun", "tsx", "ts-node",
  "python", "python3", "python2", "pypy", "pypy3", "ruby", "perl", "php", "lua", "Rscript", "osascript", "pwsh",
]);

/**
 * Files inside the project that a command line runs: the program of each simple command
 * (`./hooks/check.sh`, `"$CLAUDE_PROJECT_DIR"/x.py`) and the script an interpreter is given
 * (`node tools/hook.js`, `sh post.sh`), with the project-dir variables expanded. Files a command
 * merely writes or reads are not pinned (a log would untrust the project on every run); scripts
 * those scripts call are not followed.
 */
async function scriptsNamed(lines: string[], dir: string): Promise<string[]> {
  const candidates: string[] = [];
  for (const line of lines) {
    const expanded = line.replace(/\$\{?(ARMATURE_PROJECT_DIR|CLAUDE_PROJECT_DIR)\}?/g, dir);
    for (const simple of expanded.split(/;|&&|\|\||\||\n|&|\(|\)|`/)) {
      const words = simple
        .split(/\s+/)
        .map((w) => w.replace(/["'\\]/g, "")) // quote removal, as the shell would
        .filter((w) => w !== "" && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
      const [program, ...rest] = words;
      if (program === undefined) continue;
      candidates.push(program);
      const name = program.slice(program.lastIndexOf("/") + 1);
      if (INTERPRETERS.has(name) || name === "env" || name === "exec") {
        const script = rest.find((w) => !w.startsWith("-") && !/^[<>]/.test(w));
        if (script !== undefined) candidates.push(script);
      }
    }
  }
  const found = new Set<string>();
  for (const word of candidates) {
    if (word.includes("$") || word.startsWith("~")) continue;
    const abs = resolve(dir, word);
    if (!isInside(abs, dir)) continue;
    try {
      const real = await realpath(abs);
      if ((await stat(real)).isFile()) found.add(isInside(real, dir) ? relative(dir, real) : real);
    } catch {
      // not a file (yet): a command on the PATH, or a script that does not exist
    }
  }
  return [...found].sort();
}

/**
 * The fingerprint of a directory's security-relevant configuration: the widening keys of each
 * project settings file (allow rules, hooks, env, additionalDirectories with where each really
 * leads, defaultMode, MCP keys), `.mcp.json` as a whole, and the content of every script inside
 * the project that a project hook or MCP server names. Deny and ask rules are not pinned: adding
 * one never makes a project untrusted.
 */
/** Where a project keeps sub-agent definitions (loaded only once the project is trusted). */
const PROJECT_AGENT_DIRS = [join(".armature", "agents"), join(".claude", "agents")];

export async function projectFingerprint(dir: string): Promise<ProjectFingerprint> {
  const real = await realDir(dir);
  const entries: Record<string, string> = {};
  const shown: Record<string, string> = {};
  const commands: string[] = [];
  for (const rel of PROJECT_CONFIG_FILES) {
    const text = await readOptional(join(real, rel));
    if (text === undefined) continue;
    let json: unknown;
    try {
      json = JSON.parse(text.toString("utf8"));
    } catch {
      entries[rel] = sha(text); // not JSON: loading it fails anyway; pin the bytes
      continue;
    }
    if (json === null || typeof json !== "object" || Array.isArray(json)) {
      entries[rel] = sha(text);
      continue;
    }
    for (const { key, value } of wideningValues(json as Record<string, unknown>)) {
      let pinned: unknown = value;
      if (key === "permissions.additionalDirectories" && Array.isArray(value)) {
        // Pin where each directory leads, so that re-pointing a shipped symlink breaks trust.
        pinned = await Promise.all(value.map(async (d) => [d, typeof d === "string" ? await realDir(resolve(real, d)) : null]));
      }
      entries[`${rel}: ${key}`] = sha(JSON.stringify(pinned));
      shown[`${rel}: ${key}`] =
        key === "permissions.additionalDirectories" && Array.isArray(pinned)
          ? (pinned as Array<[unknown, unknown]>).map(([d, real]) => `${JSON.stringify(d)} → ${String(real)}`).join(", ")
          : describeWidening(key, value).slice(key.length + 1);
      if (key === "hooks" || key === "mcpServers") commands.push(...commandLines(value));
    }
  }
  const mcp = await readOptional(join(real, PROJECT_MCP_FILE));
  if (mcp !== undefined) {
    entries[PROJECT_MCP_FILE] = sha(mcp);
    try {
      commands.push(...commandLines(JSON.parse(mcp.toString("utf8"))));
    } catch {
      // not JSON: its bytes are pinned above
    }
  }
  for (const script of await scriptsNamed(commands, real)) {
    const content = await readOptional(resolve(real, script));
    if (content !== undefined) entries[`script ${script}`] = sha(content);
  }
  // Sub-agent definitions (system prompts and tool lists the Agent tool loads from the project).
  for (const agentsDir of PROJECT_AGENT_DIRS) {
    const names = await readdir(join(real, agentsDir)).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith(".md")).sort()) {
      const content = await readOptional(join(real, agentsDir, name));
      if (content !== undefined) entries[`agent ${agentsDir}/${name}`] = sha(content);
    }
  }
  const hash = sha(JSON.stringify(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b))));
  return { dir: real, hash, entries, shown };
}

interface TrustStore {
  version: 1;
  projects: Record<string, TrustRecord>;
}

async function readStore(options: TrustOptions): Promise<TrustStore> {
  const path = trustStorePath(options);
  const text = await readOptional(path);
  if (text === undefined) return { version: 1, projects: {} };
  try {
    const json = JSON.parse(text.toString("utf8")) as Partial<TrustStore>;
    if (json && typeof json === "object" && json.projects && typeof json.projects === "object") return { version: 1, projects: json.projects };
  } catch {
    // a damaged store trusts nothing; the next `armature trust` rewrites it
  }
  return { version: 1, projects: {} };
}

/** Writes the store atomically, readable by the user only (0600, its folder 0700). */
async function writeStore(store: TrustStore, options: TrustOptions): Promise<void> {
  const path = trustStorePath(options);
  const dir = join(path, "..");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(store, null, 2)}\n`, { encoding: "utf8", flag: "wx", mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** What differs between a trusted fingerprint and the current one, in words. */
export function describeChanges(before: Record<string, string>, now: Record<string, string>): string[] {
  const out: string[] = [];
  const name = (entry: string): string => {
    const m = /^(.*?): (.*)$/.exec(entry);
    if (entry.startsWith("script ")) return `hook or MCP script ${entry.slice(7)}`;
    return m ? `${m[2]} in ${m[1]}` : entry;
  };
  for (const k of Object.keys(now).sort()) {
    if (!(k in before)) out.push(`${name(k)} added`);
    else if (before[k] !== now[k]) out.push(`${name(k)} changed`);
  }
  for (const k of Object.keys(before).sort()) if (!(k in now)) out.push(`${name(k)} removed`);
  return out;
}

/**
 * Whether a directory's own configuration is trusted: recorded by `armature trust` with the
 * fingerprint it has now. `override: true` (`--trust-project`, or a library caller's explicit
 * choice) trusts it for this run without a record.
 */
export async function projectTrustStatus(dir: string, options: TrustOptions & { override?: boolean } = {}): Promise<TrustStatus> {
  const real = await realDir(dir);
  if (options.override === true) return { dir: real, trusted: true, state: "override", changes: [] };
  const record = (await readStore(options)).projects[real];
  if (!record) return { dir: real, trusted: false, state: "untrusted", changes: [] };
  const now = await projectFingerprint(real);
  if (now.hash === record.hash) return { dir: real, trusted: true, state: "trusted", changes: [] };
  const changes = describeChanges(record.entries ?? {}, now.entries);
  return { dir: real, trusted: false, state: "changed", changes: changes.length > 0 ? changes : ["its configuration changed"] };
}

/** Records trust in a directory as its configuration is now. Returns the record. */
export async function trustProject(dir: string, options: TrustOptions = {}): Promise<TrustRecord> {
  const fp = await projectFingerprint(dir);
  const record: TrustRecord = { ...fp, trustedAt: new Date().toISOString() };
  const store = await readStore(options);
  store.projects[fp.dir] = record;
  await writeStore(store, options);
  return record;
}

/** Removes a directory's trust. Resolves to whether it was trusted. */
export async function revokeProjectTrust(dir: string, options: TrustOptions = {}): Promise<boolean> {
  const real = await realDir(dir);
  const store = await readStore(options);
  const had = real in store.projects || resolve(dir) in store.projects;
  if (!had) return false;
  delete store.projects[real];
  delete store.projects[resolve(dir)];
  await writeStore(store, options);
  return true;
}

/** Every trusted directory, by path. */
export async function listTrustedProjects(options: TrustOptions = {}): Promise<TrustRecord[]> {
  const store = await readStore(options);
  return Object.values(store.projects).sort((a, b) => a.dir.localeCompare(b.dir));
}
