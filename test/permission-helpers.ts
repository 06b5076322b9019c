import { z } from "zod";
import { buildTool } from "../src/tool/build-tool.js";
import type {
  PermissionMode,
  PermissionSubject,
  ShellCommandFacts,
  ShellSubcommand,
  Tool,
  ToolPermissionResult,
} from "../src/tool/types.js";
import { parseRuleLists } from "../src/permissions/rule.js";
import type { HookPermissionDecision, PermissionRequest } from "../src/permissions/types.js";

/**
 * Builders for resolver tests: a stand-in tool by name, and hand-written shell facts for the
 * cases that need a precise shape.
 */
export function namedTool(name: string, options: { readOnly?: boolean; mcpServer?: string; interactive?: boolean } = {}): Tool {
  const tool = buildTool({
    name,
    description: `${name} (test stand-in)`,
    inputSchema: z.object({}).passthrough(),
    isReadOnly: () => options.readOnly ?? false,
    requiresUserInteraction: () => options.interactive ?? false,
    call: async () => ({ data: "ok" }),
  });
  return options.mcpServer !== undefined ? { ...tool, isMcp: true, mcpServer: options.mcpServer } : tool;
}

export function sub(text: string, extra: Partial<ShellSubcommand> = {}): ShellSubcommand {
  const argv = extra.argv ?? text.split(" ");
  return { argv, text: argv.join(" "), effective: extra.effective ?? argv.join(" "), nested: false, env: {}, redirects: [], ...extra };
}

export function facts(command: string, subs: ShellSubcommand[], extra: Partial<ShellCommandFacts> = {}): ShellCommandFacts {
  return { command, subcommands: subs, writeTargets: [], readTargets: [], cdTargets: [], readOnly: false, complete: true, reasons: [], ...extra };
}

export interface RequestSpec {
  tool: Tool;
  subject?: PermissionSubject;
  input?: Record<string, unknown>;
  cwd: string;
  /** Where the session started (default: `cwd`); a `cd` moves `cwd` only. */
  projectDir?: string;
  mode?: PermissionMode;
  allow?: string[];
  ask?: string[];
  deny?: string[];
  addDirs?: string[];
  readOnly?: boolean;
  hook?: HookPermissionDecision;
  toolPermission?: ToolPermissionResult;
}

export function request(spec: RequestSpec): PermissionRequest {
  const rules = parseRuleLists({ allow: spec.allow, ask: spec.ask, deny: spec.deny }, "test", spec.projectDir ?? spec.cwd);
  const req: PermissionRequest = {
    tool: spec.tool,
    input: spec.input ?? {},
    subject: spec.subject,
    toolPermission: spec.toolPermission ?? { behavior: "passthrough" },
    permissionContext: { mode: spec.mode ?? "default", rules, additionalDirectories: spec.addDirs ?? [] },
    cwd: spec.cwd,
    projectDir: spec.projectDir ?? spec.cwd,
    readOnly: spec.readOnly ?? (spec.subject?.kind === "shell" ? spec.subject.facts.readOnly : spec.subject?.kind === "file" ? spec.subject.access === "read" : false),
  };
  if (spec.hook) req.hookDecision = spec.hook;
  return req;
}
