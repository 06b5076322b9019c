import { createHash } from "node:crypto";
import { mkdir, readdir, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative, resolve } from "node:path";
import { PROJECT_MCP_PATH, projectInputs } from "./project-inputs.js";
import { describeInFull, describeServers, wideningValues } from "./project-policy.js";
import { ConfigFileError, jsonDepth, MAX_CONFIG_DEPTH, readConfigBytes } from "./read-config-file.js";
import { pinCommandLines } from "./trust-pins.js";
import { atomicWriteFile } from "../fs/atomic-write.js";

/**
 * Workspace trust, like `direnv allow`: a project directory's own configuration may only
 * restrict until the user trusts it. Trust is recorded in the user's config dir with a
 * fingerprint of the directory's security-relevant configuration, and holds only while that
 * fingerprint is unchanged.
 */

/** The project files whose widening content is pinned by trust, relative to the project. */
export const PROJECT_CONFIG_FILES: readonly string[] = projectInputs("settings", true).map((i) => i.path);
/** The project's MCP server file: pinned as a whole. */
export const PROJECT_MCP_FILE = PROJECT_MCP_PATH;

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
  /** For the user who trusts it: each pinned entry's value in full (`"./rootlink" → /`). Not part of the hash. */
  shown?: Record<string, string>;
  /** What the hooks and MCP servers run that could not be pinned, in words. Not part of the hash. */
  unpinned?: string[];
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

/** A configuration file's bytes; undefined when absent; a ConfigFileError when it cannot be read safely. */
async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readConfigBytes(path);
  } catch (err) {
    if (err instanceof ConfigFileError && err.missing) return undefined;
    throw err;
  }
}

async function realDir(dir: string): Promise<string> {
  try {
    return await realpath(resolve(dir));
  } catch {
    return resolve(dir);
  }
}

/** Every command line of hook handlers and MCP server definitions: `command` with its `args`. */
function commandLines(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 64) return out; // the loader refuses deeper files; this only keeps the walk finite
  if (Array.isArray(value)) for (const v of value) commandLines(v, out, depth + 1);
  else if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (typeof o.command === "string") {
      const args = Array.isArray(o.args) ? o.args.filter((a): a is string => typeof a === "string") : [];
      out.push([o.command, ...args.map((a) => `'${a}'`)].join(" "));
    }
    for (const [k, v] of Object.entries(o)) if (k !== "command" && k !== "args") commandLines(v, out, depth + 1);
  }
  return out;
}

/**
 * The fingerprint of a directory's security-relevant configuration: the widening keys of each
 * project settings file (allow rules, hooks, env, additionalDirectories with where each really
 * leads, defaultMode, MCP keys, import), `.mcp.json` as a whole, everything inside the project
 * that a project hook or MCP server runs (trust-pins: scripts, what they load, package.json
 * scripts, Makefiles, whole folders where a script cannot be followed), and the project's agent
 * and skill files. Deny and ask rules are not pinned: adding one never makes a project untrusted.
 */
export async function projectFingerprint(dir: string): Promise<ProjectFingerprint> {
  const real = await realDir(dir);
  const entries: Record<string, string> = {};
  const shown: Record<string, string> = {};
  const commands: string[] = [];
  for (const rel of PROJECT_CONFIG_FILES) {
    let text: Buffer | undefined;
    try {
      text = await readOptional(join(real, rel));
    } catch (err) {
      // Loading it fails closed too; pin that it could not be read.
      entries[rel] = `unreadable: ${(err as Error).message}`;
      shown[rel] = `cannot be read: ${(err as ConfigFileError).problem ?? (err as Error).message}`;
      continue;
    }
    if (text === undefined) continue;
    let json: unknown;
    try {
      const source = text.toString("utf8");
      if (jsonDepth(source) > MAX_CONFIG_DEPTH) throw new Error("too deep");
      json = JSON.parse(source);
    } catch {
      entries[rel] = sha(text); // not usable JSON: loading it fails anyway; pin the bytes
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
          : describeInFull(key, value);
      if (key === "hooks" || key === "mcpServers") commands.push(...commandLines(value));
    }
  }
  let mcp: Buffer | undefined;
  try {
    mcp = await readOptional(join(real, PROJECT_MCP_FILE));
  } catch (err) {
    entries[PROJECT_MCP_FILE] = `unreadable: ${(err as Error).message}`;
  }
  if (mcp !== undefined) {
    entries[PROJECT_MCP_FILE] = sha(mcp);
    try {
      const json = JSON.parse(mcp.toString("utf8")) as { mcpServers?: unknown };
      commands.push(...commandLines(json));
      if (json.mcpServers !== null && typeof json.mcpServers === "object") shown[PROJECT_MCP_FILE] = describeServers(json.mcpServers as Record<string, unknown>);
    } catch {
      // not JSON: its bytes are pinned above
    }
  }
  const pins = await pinCommandLines(commands, real);
  for (const [file, hash] of pins.files) entries[`script ${file}`] = hash;
  for (const [folder, hash] of pins.dirs) entries[`folder ${folder}/`] = hash;
  // Sub-agent definitions and skills: prompts, tool lists and scripts the agent loads from the project.
  for (const input of [...projectInputs("agents", true), ...projectInputs("skills", true)]) {
    const names = await readdir(join(real, input.path)).catch(() => [] as string[]);
    if (input.kind === "agents") {
      for (const name of names.filter((n) => n.endsWith(".md")).sort()) {
        const content = await readOptional(join(real, input.path, name)).catch(() => Buffer.from("unreadable"));
        if (content !== undefined) entries[`agent ${input.path}/${name}`] = sha(content);
      }
    } else if (names.length > 0) {
      entries[`skills ${input.path}/`] = await folderHash(join(real, input.path));
    }
  }
  const hash = sha(JSON.stringify(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b))));
  return { dir: real, hash, entries, shown, unpinned: pins.unpinned };
}

/** One hash over a folder's files (bounded like trust-pins' folders). */
async function folderHash(dir: string): Promise<string> {
  const parts: string[] = [];
  const visit = async (d: string, depth: number): Promise<void> => {
    for (const name of (await readdir(d).catch(() => [] as string[])).sort()) {
      if (parts.length >= 500) return;
      const path = join(d, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isDirectory() && depth < 4) await visit(path, depth + 1);
      else if (info?.isFile()) parts.push(`${relative(dir, path)}\0${sha((await readOptional(path).catch(() => undefined)) ?? "unreadable")}`);
    }
  };
  await visit(dir, 0);
  return sha(parts.join("\n"));
}

interface TrustStore {
  version: 1;
  projects: Record<string, TrustRecord>;
}

async function readStore(options: TrustOptions): Promise<TrustStore> {
  const path = trustStorePath(options);
  // Not a regular file, too large: trusts nothing (the next `armature trust` replaces it).
  const text = await readOptional(path).catch(() => undefined);
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
  // A unique temp name, every byte checked, fsync, rename: a full disk leaves the old store whole.
  await atomicWriteFile(path, Buffer.from(`${JSON.stringify(store, null, 2)}\n`, "utf8"), { followLinks: false, newFileMode: 0o600 });
}

/** What differs between a trusted fingerprint and the current one, in words. */
export function describeChanges(before: Record<string, string>, now: Record<string, string>): string[] {
  const out: string[] = [];
  const name = (entry: string): string => {
    const m = /^(.*?): (.*)$/.exec(entry);
    if (entry.startsWith("script ")) return `hook or MCP script ${entry.slice(7)}`;
    if (entry.startsWith("folder ")) return `files in ${entry.slice(7)} (run by a hook or MCP server)`;
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
