import { resolve } from "node:path";
import {
  McpConfigError,
  mergeMcpApproval,
  parseMcpServers,
  projectMcpServersAllowed,
  readMcpConfigFlag,
  readProjectMcpJson,
  type McpServerEntry,
} from "../mcp/config.js";
import { readJsonFile } from "../mcp/config.js";
import { normalizeMcpName } from "../mcp/names.js";
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

/**
 * The servers to connect, highest precedence first: `--mcp-config`, then (unless
 * `--strict-mcp-config`) `mcpServers` of the settings files (managed, --settings, local, user),
 * then the project's own (`.mcp.json`, `.armature/settings.json`) — those only when the project
 * is trusted and the user approved them (see projectMcpServersAllowed). Returns warnings for
 * servers left out.
 */
export async function mcpServerEntries(values: McpFlagValues, settings: ExecSettings, cwd: string, trusted: boolean): Promise<{ entries: McpServerEntry[]; warnings: string[] }> {
  const entries: McpServerEntry[] = [];
  const warnings: string[] = [];
  const take = (parsed: { servers: McpServerEntry[]; problems: string[] }): void => {
    entries.push(...parsed.servers);
    warnings.push(...parsed.problems.map((p) => `MCP server left out: ${p}`));
  };
  try {
    for (const value of values["mcp-config"] ?? []) take(await readMcpConfigFlag(value, cwd));
    if (values["strict-mcp-config"]) return { entries, warnings };
    const files = settings.loaded.sources.filter((s) => s.loaded);
    const userLevels: unknown[] = [];
    const project: McpServerEntry[] = [];
    for (const file of files) {
      const json = await readJsonFile(file.path);
      if (file.level !== "project") userLevels.push(json);
      const parsed = parseMcpServers(json ?? {}, file.path, LEVEL_SCOPE[file.level] ?? "project", { baseDir: cwd });
      if (file.level === "project") {
        project.push(...parsed.servers);
        warnings.push(...parsed.problems.map((p) => `MCP server left out: ${p}`));
      } else take(parsed);
    }
    const mcpJson = await readProjectMcpJson(resolve(cwd));
    warnings.push(...mcpJson.problems.map((p) => `MCP server left out: ${p}`));
    project.push(...mcpJson.servers);
    const approval = mergeMcpApproval(userLevels);
    for (const entry of project) {
      if (projectMcpServersAllowed(approval, trusted, entry.name)) entries.push(entry);
      else {
        warnings.push(
          `MCP server ${JSON.stringify(entry.name)} from ${entry.source} is not used: ${trusted ? "not approved" : "the project is not trusted (armature trust, or --trust-project for one run)"}; ` +
            `approve it with "enabledMcpjsonServers": [${JSON.stringify(entry.name)}] or "enableAllProjectMcpServers": true in your user or local settings`,
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
  sdk?: { servers: readonly string[]; transport: NonNullable<ConnectMcpOptions["sdkTransport"]> },
): Promise<McpManager | undefined> {
  // Workspace trust: a project's own servers start only once the user trusts the project
  // (`armature trust`, or --trust-project for one run) and approves them.
  const trusted = settings.loaded.trust.trusted;
  const { entries, warnings } = await mcpServerEntries(values, settings, cwd, trusted);
  for (const w of warnings) io.stderr.write(`armature: ${w}\n`);
  // The SDK host's in-process servers come first: the host named them for this run.
  for (const name of [...(sdk?.servers ?? [])].reverse()) {
    entries.unshift({ name, normalizedName: normalizeMcpName(name), config: { type: "sdk" }, scope: "dynamic", source: "the SDK host (initialize.sdkMcpServers)" });
  }
  if (entries.length === 0) return undefined;
  const { connectMcpServers } = await import("../mcp/manager.js");
  return connectMcpServers(entries, {
    cwd,
    env: settings.env,
    ...(sdk ? { sdkTransport: sdk.transport } : {}),
    onEvent: (event) => {
      if (event.type === "failed") io.stderr.write(`armature: MCP server ${event.server} failed to start: ${event.error}\n`);
      if (event.type === "lost") io.stderr.write(`armature: MCP server ${event.server} stopped: ${event.error}\n`);
    },
  });
}
