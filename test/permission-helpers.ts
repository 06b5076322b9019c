import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { buildTool } from "../src/tool/build-tool.js";
import type {
  PermissionMode,
  PermissionSubject,
  ShellCommandFacts,
  ShellSubcommand,
  Tool,
  ToolResultBlock,
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

/** The command and rules of the one-analysis-per-call tests: four subcommands, rules of every kind. */
export const SHELL_CALL = { command: "grep -rn foo src | head -5; wc -l src/a.ts && echo done", subcommands: 4 };

/**
 * One Bash call through a real session (the built-in tools; deny, ask and allow rules, so that
 * rule matching, the safety checks, the read narrowing and the mode all consult the command) in a
 * project holding src/a.ts and .env. `lib` is the library entry: a test that reloads the modules
 * passes its own.
 */
export async function shellCallThroughSession(lib: typeof import("../src/index.js"), dir: string): Promise<ToolResultBlock> {
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "src", "a.ts"), "foo\n");
  writeFileSync(join(dir, ".env"), "SECRET=1\n");
  const rule = (raw: string, behavior: "allow" | "ask" | "deny") => lib.parseRule(raw, behavior, "test", dir);
  const rules = [rule("Read(./.env)", "deny"), rule("Bash(curl *)", "ask"), rule("Bash(git status)", "allow"), rule("Bash(wc *)", "allow")];
  const session = lib.createSession({ cwd: dir, tools: lib.builtinTools(), rules, sandbox: false });
  try {
    const [result] = await session.runTurn([{ type: "tool_use", id: "toolu_shell_call", name: "Bash", input: { command: SHELL_CALL.command } }]);
    return result!;
  } finally {
    await session.close();
  }
}
