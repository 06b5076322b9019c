import { join, resolve } from "node:path";
import { PROJECT_MCP_PATH } from "../settings/project-inputs.js";
import { ConfigFileError, readConfigJson } from "../settings/read-config-file.js";
import { normalizeMcpName } from "./names.js";

/** One server as configured (`.mcp.json`, `mcpServers` in settings, `--mcp-config`), after `${VAR}` expansion. */
export type McpServerConfig =
  | { type: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { type: "http"; url: string; headers: Record<string, string> }
  | { type: "sse"; url: string; headers: Record<string, string> }
  /** A server living in the host process (the Agent SDK's `createSdkMcpServer`), reached through `ConnectMcpOptions.sdkTransport`. */
  | { type: "sdk" };

/** Where a server's configuration came from: the reference's scopes. */
export type McpScope = "project" | "local" | "user" | "managed" | "dynamic";

export interface McpServerEntry {
  /** The name as configured. */
  name: string;
  /** The name in tool names (`mcp__<normalized>__tool`) and permission rules. */
  normalizedName: string;
  config: McpServerConfig;
  scope: McpScope;
  /** The file (or `--mcp-config`) it came from. */
  source: string;
}

/** A configuration that cannot be used as a whole (not JSON, not an object): names the file and the key. */
export class McpConfigError extends Error {
  constructor(
    readonly source: string,
    readonly key: string | null,
    readonly problem: string,
  ) {
    super(`${source}${key ? `: ${key}` : ""}: ${problem}`);
    this.name = "McpConfigError";
  }
}

export interface ParsedMcpServers {
  servers: McpServerEntry[];
  /** Servers left out, each with the reason (a bad entry does not take the others down). */
  problems: string[];
}

/**
 * Expands `${VAR}` and `${VAR:-default}` (the reference's syntax). A variable that is not set
 * and has no default is reported in `missing` and expands to "".
 */
export function expandEnvVars(text: string, env: NodeJS.ProcessEnv, missing: Set<string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_whole, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    if (value === undefined) missing.add(name);
    return "";
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function stringRecord(value: unknown, key: string, source: string, expand: (s: string) => string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new McpConfigError(source, key, "must be an object of strings");
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") throw new McpConfigError(source, `${key}.${k}`, "must be a string");
    out[k] = expand(v);
  }
  return out;
}

function parseOne(name: string, raw: unknown, source: string, env: NodeJS.ProcessEnv, baseDir: string): McpServerConfig {
  const key = `mcpServers.${name}`;
  if (!isRecord(raw)) throw new McpConfigError(source, key, "must be an object");
  const missing = new Set<string>();
  const expand = (s: string): string => expandEnvVars(s, env, missing);
  const type = raw.type ?? (raw.command !== undefined ? "stdio" : raw.url !== undefined ? "http" : undefined);
  let config: McpServerConfig;
  if (type === "stdio") {
    if (typeof raw.command !== "string" || raw.command.trim() === "") throw new McpConfigError(source, `${key}.command`, "must be a non-empty string");
    if (raw.args !== undefined && (!Array.isArray(raw.args) || raw.args.some((a) => typeof a !== "string"))) {
      throw new McpConfigError(source, `${key}.args`, "must be an array of strings");
    }
    config = { type: "stdio", command: expand(raw.command), args: ((raw.args as string[] | undefined) ?? []).map(expand), env: stringRecord(raw.env, `${key}.env`, source, expand) };
    if (typeof raw.cwd === "string") config.cwd = resolve(baseDir, expand(raw.cwd));
  } else if (type === "http" || type === "sse" || type === "streamable-http") {
    if (typeof raw.url !== "string") throw new McpConfigError(source, `${key}.url`, "must be a string");
    const url = expand(raw.url);
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
    } catch {
      throw new McpConfigError(source, `${key}.url`, `${JSON.stringify(url)} is not an http(s) URL`);
    }
    config = { type: type === "sse" ? "sse" : "http", url, headers: stringRecord(raw.headers, `${key}.headers`, source, expand) };
  } else {
    throw new McpConfigError(source, `${key}.type`, `must be "stdio", "http" or "sse"; got ${JSON.stringify(type)}`);
  }
  if (missing.size > 0) {
    throw new McpConfigError(source, key, `environment variable${missing.size > 1 ? "s" : ""} ${[...missing].join(", ")} not set (use \${VAR:-default} for a default)`);
  }
  return config;
}

/**
 * The servers of one `{"mcpServers": {...}}` document. A document that is not an object is an
 * McpConfigError; a bad server entry is left out and reported in `problems`.
 */
export function parseMcpServers(json: unknown, source: string, scope: McpScope, options: { env?: NodeJS.ProcessEnv; baseDir?: string } = {}): ParsedMcpServers {
  if (!isRecord(json)) throw new McpConfigError(source, null, 'must be a JSON object like {"mcpServers": {...}}');
  const servers = json.mcpServers;
  if (servers === undefined) return { servers: [], problems: [] };
  if (!isRecord(servers)) throw new McpConfigError(source, "mcpServers", "must be an object of servers by name");
  const out: ParsedMcpServers = { servers: [], problems: [] };
  for (const [name, raw] of Object.entries(servers)) {
    try {
      const config = parseOne(name, raw, source, options.env ?? process.env, options.baseDir ?? process.cwd());
      out.servers.push({ name, normalizedName: normalizeMcpName(name), config, scope, source });
    } catch (err) {
      if (!(err instanceof McpConfigError)) throw err;
      out.problems.push(err.message);
    }
  }
  return out;
}

/** Reads a JSON file (a regular file, size- and depth-capped), or `undefined` when it does not exist. */
export async function readJsonFile(path: string): Promise<unknown> {
  try {
    return await readConfigJson(path);
  } catch (err) {
    if (err instanceof ConfigFileError) throw new McpConfigError(path, null, err.problem);
    throw err;
  }
}

/** `--mcp-config VALUE`: a JSON document (starts with `{`) or a file holding one. */
export async function readMcpConfigFlag(value: string, cwd: string, env?: NodeJS.ProcessEnv): Promise<ParsedMcpServers> {
  if (value.trim().startsWith("{")) {
    let json: unknown;
    try {
      json = JSON.parse(value);
    } catch (err) {
      throw new McpConfigError("--mcp-config", null, `not valid JSON (${(err as Error).message})`);
    }
    return parseMcpServers(json, "--mcp-config", "dynamic", { env, baseDir: cwd });
  }
  const path = resolve(cwd, value);
  const json = await readJsonFile(path);
  if (json === undefined) throw new McpConfigError(path, null, "no such file (--mcp-config)");
  return parseMcpServers(json, path, "dynamic", { env, baseDir: cwd });
}

/** The project's `.mcp.json` (its servers still need approval: see projectMcpServersAllowed). */
export async function readProjectMcpJson(projectDir: string, env?: NodeJS.ProcessEnv): Promise<ParsedMcpServers> {
  const path = join(projectDir, PROJECT_MCP_PATH);
  const json = await readJsonFile(path);
  if (json === undefined) return { servers: [], problems: [] };
  return parseMcpServers(json, path, "project", { env, baseDir: projectDir });
}

/** The settings keys that approve project servers (the reference's names). */
export interface McpApprovalSettings {
  enableAllProjectMcpServers?: boolean;
  enabledMcpjsonServers?: readonly string[];
  disabledMcpjsonServers?: readonly string[];
}

/**
 * Whether a server from the project's `.mcp.json` may be used: only in a trusted project, and
 * only when the user approved it — a flag or the user's own settings (`enableAllProjectMcpServers`,
 * `enabledMcpjsonServers`); `disabledMcpjsonServers` wins over both. A checked-in file never
 * approves itself: `approval` must come from settings the project does not control (user,
 * local, managed, command line).
 */
export function projectMcpServersAllowed(approval: McpApprovalSettings, trusted: boolean, serverName: string, approvedByFlag = false): boolean {
  if (!trusted) return false;
  if (approval.disabledMcpjsonServers?.includes(serverName)) return false;
  if (approvedByFlag) return true;
  if (approval.enableAllProjectMcpServers === true) return true;
  return approval.enabledMcpjsonServers?.includes(serverName) ?? false;
}

/** Merges approval keys of several settings files (highest precedence first): arrays join, the first boolean wins. */
export function mergeMcpApproval(levels: readonly unknown[]): McpApprovalSettings {
  const out: { enableAllProjectMcpServers?: boolean; enabledMcpjsonServers: string[]; disabledMcpjsonServers: string[] } = {
    enabledMcpjsonServers: [],
    disabledMcpjsonServers: [],
  };
  for (const level of levels) {
    if (!isRecord(level)) continue;
    if (out.enableAllProjectMcpServers === undefined && typeof level.enableAllProjectMcpServers === "boolean") {
      out.enableAllProjectMcpServers = level.enableAllProjectMcpServers;
    }
    for (const key of ["enabledMcpjsonServers", "disabledMcpjsonServers"] as const) {
      const list = level[key];
      if (Array.isArray(list)) out[key].push(...list.filter((x): x is string => typeof x === "string"));
    }
  }
  return out;
}
