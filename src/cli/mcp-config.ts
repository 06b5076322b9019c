import { projectCodeBoundary } from "../sandbox/project-code.js";
import { sandboxStatus } from "../sandbox/status.js";
import { resolve } from "node:path";
import {
  McpConfigError,
  parseMcpServers,
  projectMcpServersAllowed,
  readMcpConfigFlag,
  readProjectMcpJson,
  type McpServerEntry,
} from "../mcp/config.js";
import { normalizeMcpName } from "../mcp/names.js";
import { userConfigDir } from "../session/session-home.js";
import type { ConnectMcpOptions, McpManager } from "../mcp/manager.js";
import type { McpScope } from "../mcp/config.js";
import type { ExecSettings } from "./settings.js";
import { UsageError, type CliIO } from "./io.js";

/** The MCP flags `exec` and `mcp serve` share. */
export const MCP_CONFIG_OPTIONS = {
  "mcp-config": { type: "string", multiple: true },
  "strict-mcp-config": { type: "boolean" },
} as const;

export const MCP_CONFIG_HELP = `  --mcp-config FILE|JSON MCP servers to connect ({"mcpServers": {...}}; repeatable)
  --strict-mcp-config    only the --mcp-config servers (not .mcp.json or settings)
`;

export interface McpFlagValues {
  "mcp-config"?: string[];
  "strict-mcp-config"?: boolean;
  "trust-project"?: boolean;
}

const LEVEL_SCOPE: Record<string, McpScope> = { managed: "managed", cli: "dynamic", local: "local", user: "user", project: "project" };

/** A project's own file: the project controls it, whatever its level's name says. */
const projectOwned = (level: string): boolean => level === "project" || level === "local";

/**
 * The servers to connect, highest precedence first: `--mcp-config`, then (unless
 * `--strict-mcp-config`) the user's own `mcpServers` (managed, --settings, user), then the
 * project's (`.mcp.json`, `mcpServers` of `.armature/settings.json` and `settings.local.json`) —
 * those only when the project is trusted and the user approved them (projectMcpServersAllowed),
 * and never under a name one of the user's servers has (it would inherit that server's allow
 * rules). Servers come from the settings loader, which already left out an untrusted project's.
 * Returns warnings for servers left out.
 */
export async function mcpServerEntries(values: McpFlagValues, settings: ExecSettings, cwd: string, trusted: boolean): Promise<{ entries: McpServerEntry[]; warnings: string[] }> {
  const entries: McpServerEntry[] = [];
  const warnings: string[] = [];
  const leftOut = (problems: string[]): void => {
    warnings.push(...problems.map((p) => `MCP server left out: ${p}`));
  };
  try {
    for (const value of values["mcp-config"] ?? []) {
      // A file is relative to the shell's directory (as every path flag is); the servers' own `cwd` to --cwd.
      const parsed = await readMcpConfigFlag(value.trim().startsWith("{") ? value : resolve(value), cwd);
      entries.push(...parsed.servers);
      leftOut(parsed.problems);
    }
    if (values["strict-mcp-config"]) return { entries, warnings };
    const project: McpServerEntry[] = [];
    for (const level of settings.loaded.mcpServers) {
      const parsed = parseMcpServers({ mcpServers: level.config }, level.source, LEVEL_SCOPE[level.level] ?? "project", { baseDir: cwd });
      leftOut(parsed.problems);
      if (projectOwned(level.level)) project.push(...parsed.servers);
      else entries.push(...parsed.servers);
    }
    if (trusted) {
      const mcpJson = await readProjectMcpJson(resolve(cwd));
      leftOut(mcpJson.problems);
      project.push(...mcpJson.servers);
    }
    const users = new Set(entries.map((e) => e.normalizedName));
    for (const entry of project) {
      if (users.has(entry.normalizedName)) {
        warnings.push(`MCP server ${JSON.stringify(entry.name)} from ${entry.source} is not used: one of your own servers has that name, and a project's server never takes its place`);
      } else if (projectMcpServersAllowed(settings.loaded.mcpApproval, trusted, entry.name)) entries.push(entry);
      else {
        warnings.push(
          `MCP server ${JSON.stringify(entry.name)} from ${entry.source} is not used: not approved; ` +
            `approve it with "enabledMcpjsonServers": [${JSON.stringify(entry.name)}] or "enableAllProjectMcpServers": true in your user settings`,
        );
      }
    }
  } catch (err) {
    if (err instanceof McpConfigError) throw new UsageError(err.message);
    throw err;
  }
  return { entries, warnings };
}

/**
 * Connects the configured servers (loading the MCP SDK only when there is one); failures and
 * lost servers are reported on stderr and the run goes on without them.
 */
export async function connectCliMcp(
  values: McpFlagValues,
  settings: ExecSettings,
  cwd: string,
  io: CliIO,
  sdk?: {
    /** The host's in-process servers (`initialize.sdkMcpServers`). */
    servers: readonly string[];
    transport: NonNullable<ConnectMcpOptions["sdkTransport"]>;
    /** The host's other servers (`initialize.mcpServers`): what `--mcp-config` would have carried. */
    configured?: readonly McpServerEntry[];
  },
): Promise<McpManager | undefined> {
  // Workspace trust: a project's own servers start only once the user trusts the project
  // (`armature trust`, or --trust-project for one run) and approves them.
  const trusted = settings.loaded.trust.trusted;
  const { entries, warnings } = await mcpServerEntries(values, settings, cwd, trusted);
  for (const w of warnings) io.stderr.write(`armature: ${w}\n`);
  // The SDK host's servers come first: the host named them for this run (in-process ones, then
  // those it sent in initialize instead of --mcp-config).
  entries.unshift(...(sdk?.configured ?? []));
  for (const name of [...(sdk?.servers ?? [])].reverse()) {
    entries.unshift({ name, normalizedName: normalizeMcpName(name), config: { type: "sdk" }, scope: "dynamic", source: "the SDK host (initialize.sdkMcpServers)" });
  }
  // An SDK host may add servers later (setMcpServers): it always gets a manager (the MCP SDK loads with the first server).
  if (entries.length === 0 && !sdk) return undefined;
  const { connectMcpServers } = await import("../mcp/manager.js");
  const projectBoundary = entries.some((e) => e.scope === "project" || e.scope === "local")
    ? projectCodeBoundary(sandboxStatus(settings.sandbox), { projectDir: resolve(cwd), additionalDirectories: settings.additionalDirectories })
    : undefined;
  return connectMcpServers(entries, {
    cwd,
    env: settings.env,
    ...(projectBoundary ? { projectBoundary } : {}),
    oauthConfigDir: userConfigDir(),
    ...(sdk ? { sdkTransport: sdk.transport } : {}),
    onEvent: (event) => {
      if (event.type === "failed") io.stderr.write(`armature: MCP server ${event.server} failed to start: ${event.error}\n`);
      if (event.type === "lost") io.stderr.write(`armature: MCP server ${event.server} stopped: ${event.error}\n`);
    },
  });
}

/**
 * Servers an SDK host hands over (`initialize.mcpServers`, `mcp_set_servers.servers`): the
 * in-process ones (`{type: "sdk"}`, reached over the control channel) and the others, read as an
 * `--mcp-config` item would be (the host's own configuration, outside the project's boundary).
 * A bad entry is left out and named in `problems`.
 */
export function hostMcpEntries(servers: unknown, cwd: string, source: string): { entries: McpServerEntry[]; problems: string[] } {
  if (servers === undefined || servers === null) return { entries: [], problems: [] };
  if (typeof servers !== "object" || Array.isArray(servers)) return { entries: [], problems: [`${source}: must be an object of servers by name`] };
  const inProcess: McpServerEntry[] = [];
  const configured: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(servers as Record<string, unknown>)) {
    if (typeof raw === "object" && raw !== null && (raw as { type?: unknown }).type === "sdk") {
      inProcess.push({ name, normalizedName: normalizeMcpName(name), config: { type: "sdk" }, scope: "dynamic", source });
    } else configured[name] = raw;
  }
  const parsed = parseMcpServers({ mcpServers: configured }, source, "dynamic", { baseDir: cwd });
  return { entries: [...inProcess, ...parsed.servers], problems: parsed.problems };
}
