import { resolve } from "node:path";
import { z } from "zod";
import { observableInput, permissionRequestFor } from "../pipeline/permission-request.js";
import { modelSchema } from "../pipeline/prepare.js";
import { inputValidationMessage } from "../pipeline/errors.js";
import type { PermissionRequest } from "../permissions/types.js";
import type { SandboxStatus } from "../sandbox/status.js";
import { findToolByName } from "../registry/find-tool.js";
import { buildTool } from "../tool/build-tool.js";
import { createToolUseContext } from "../tool/context.js";
import type { PermissionMode, PermissionRule, PermissionSubject, Tool, ToolUseContext } from "../tool/types.js";
import { UsageError } from "./io.js";

/**
 * Tools that rules commonly name but that this build does not contain (yet): their subject is
 * built from the input the way their definitions would, so a policy can be checked anyway.
 */
const STAND_IN_NAMES = ["NotebookRead", "WebSearch", "Agent", "Task", "mcp__<server>__<tool>"];

const standIns = new WeakSet<Tool>();

function standIn(name: string, readOnly: boolean, subject: (input: Record<string, unknown>, cwd: string) => PermissionSubject | undefined): Tool {
  const mcp = /^mcp__([A-Za-z0-9_-]+?)__/.exec(name);
  const tool = buildTool({
    name,
    description: `${name} (as named in a permission check)`,
    inputSchema: z.looseObject({}),
    isReadOnly: () => readOnly,
    permissionSubject: (input, context) => subject(input as Record<string, unknown>, context.workspace.cwd),
    call: async () => ({ data: null }),
  });
  const out: Tool = mcp ? { ...tool, isMcp: true, mcpServer: mcp[1] } : tool;
  standIns.add(out);
  return out;
}

function stringField(input: Record<string, unknown>, key: string): string | undefined {
  const v = input[key];
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

/** For a tool name that only a stand-in answers for: a note saying exec cannot run it. */
export function standInNote(name: string, tools: readonly Tool[]): string | undefined {
  if (findToolByName(tools, name) || !standInTool(name)) return undefined;
  return `${name} is not a tool armature exec has: this is the decision its rules would give a host that adds it`;
}

/** The stand-in for a tool this build lacks, or undefined when the name means nothing to us. */
export function standInTool(name: string): Tool | undefined {
  if (name === "NotebookRead") {
    return standIn(name, true, (input, cwd) => ({ kind: "file", access: "read", paths: [resolve(cwd, stringField(input, "notebook_path") ?? ".")] }));
  }
  if (name.startsWith("mcp__") || name === "WebSearch" || name === "Agent" || name === "Task") {
    return standIn(name, false, () => undefined);
  }
  return undefined;
}

export interface CheckCall {
  tool: string;
  input: unknown;
  cwd: string;
  mode: PermissionMode;
  rules: readonly PermissionRule[];
  additionalDirectories: readonly string[];
  /** The sandbox a session with these settings has: the tool's own check and the boundary read it. */
  sandbox?: SandboxStatus;
}

/** One context for many checks with the same settings (an audit decides thousands of calls; nothing is run). */
export type CheckContexts = Map<string, ToolUseContext>;

/**
 * The request a real call would reach the resolver with: the tool's parse, backfill,
 * `checkPermissions`, `permissionSubject` and `isReadOnly`, without running it.
 */
export async function buildCheckRequest(call: CheckCall, tools: readonly Tool[], contexts?: CheckContexts): Promise<PermissionRequest> {
  const tool = findToolByName(tools, call.tool) ?? standInTool(call.tool);
  if (!tool) {
    const known = [...new Set([...tools.map((t) => t.name), ...STAND_IN_NAMES])];
    throw new UsageError(`--tool: no tool named ${JSON.stringify(call.tool)}; known: ${known.join(", ")}`);
  }
  await tool.load?.();
  const key = `${call.cwd}\u0000${call.mode}`;
  let context = contexts?.get(key);
  if (!context || context.permissionContext.rules !== call.rules) {
    const created = createToolUseContext({
      cwd: call.cwd,
      tools,
      permissionMode: call.mode,
      rules: call.rules,
      additionalDirectories: call.additionalDirectories,
    });
    context = call.sandbox ? { ...created, permissionContext: { ...created.permissionContext, sandbox: call.sandbox } } : created;
    contexts?.set(key, context);
  }
  let input: Record<string, unknown>;
  if (standIns.has(tool)) {
    if (typeof call.input !== "object" || call.input === null || Array.isArray(call.input)) throw new UsageError("--input must be a JSON object");
    input = call.input as Record<string, unknown>;
  } else {
    const parsed = modelSchema(tool).safeParse(call.input);
    if (!parsed.success) throw new UsageError(`--input: ${inputValidationMessage(tool.name, parsed.error, call.input)}`);
    input = parsed.data as Record<string, unknown>;
  }
  const observable = observableInput(tool, input, context);
  return permissionRequestFor(tool, input, observable, context, await tool.checkPermissions(input, context));
}
