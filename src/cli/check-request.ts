import { resolve } from "node:path";
import { z } from "zod";
import { modelSchema } from "../pipeline/prepare.js";
import { inputValidationMessage } from "../pipeline/errors.js";
import type { PermissionRequest } from "../permissions/types.js";
import { findToolByName } from "../registry/find-tool.js";
import { buildTool } from "../tool/build-tool.js";
import { createToolUseContext } from "../tool/context.js";
import type { PermissionMode, PermissionRule, PermissionSubject, Tool } from "../tool/types.js";
import { analyzeCommand } from "../tools/bash/analysis/index.js";
import { UsageError } from "./io.js";

/**
 * Tools that rules commonly name but that this build may not contain: their subject is built
 * from the input the same way their definitions do, so a policy can be checked anyway.
 */
const FILE_READERS: Record<string, string> = { Read: "file_path", Glob: "path", Grep: "path", NotebookRead: "notebook_path" };
const FILE_WRITERS: Record<string, string> = { Write: "file_path", Edit: "file_path", MultiEdit: "file_path", NotebookEdit: "notebook_path" };

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

/** The stand-in for a tool this build lacks, or undefined when the name means nothing to us. */
export function standInTool(name: string): Tool | undefined {
  const reader = FILE_READERS[name];
  if (reader) {
    return standIn(name, true, (input, cwd) => ({ kind: "file", access: "read", paths: [resolve(cwd, stringField(input, reader) ?? ".")] }));
  }
  const writer = FILE_WRITERS[name];
  if (writer) {
    return standIn(name, false, (input, cwd) => {
      const p = stringField(input, writer);
      return p === undefined ? undefined : { kind: "file", access: "write", paths: [resolve(cwd, p)] };
    });
  }
  if (name === "Bash") {
    // The Bash tool itself lives in another module; its subject is the analysis of its command.
    const facts = (input: Record<string, unknown>) => analyzeCommand(stringField(input, "command") ?? "");
    const tool = standIn(name, false, (input) => ({ kind: "shell", facts: facts(input) }));
    const out: Tool = { ...tool, isReadOnly: (input) => facts(input as Record<string, unknown>).readOnly };
    standIns.add(out);
    return out;
  }
  if (name === "WebFetch") {
    return standIn(name, false, (input) => {
      const url = stringField(input, "url");
      return url === undefined ? undefined : { kind: "url", url };
    });
  }
  if (name.startsWith("mcp__") || name === "WebSearch" || name === "Agent" || name === "Task" || name === "TodoWrite") {
    return standIn(name, name === "TodoWrite", () => undefined);
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
}

/**
 * The request a real call would reach the resolver with: the tool's parse, backfill,
 * `checkPermissions`, `permissionSubject` and `isReadOnly`, without running it.
 */
export async function buildCheckRequest(call: CheckCall, tools: readonly Tool[]): Promise<PermissionRequest> {
  const tool = findToolByName(tools, call.tool) ?? standInTool(call.tool);
  if (!tool) {
    throw new UsageError(`--tool: no tool named ${JSON.stringify(call.tool)}; known: ${[...tools.map((t) => t.name)].join(", ") || "(none built in)"}, Read, Write, Edit, MultiEdit, NotebookEdit, Glob, Grep, WebFetch, mcp__<server>__<tool>`);
  }
  const context = createToolUseContext({
    cwd: call.cwd,
    tools,
    permissionMode: call.mode,
    rules: call.rules,
    additionalDirectories: call.additionalDirectories,
  });
  let input: Record<string, unknown>;
  if (standIns.has(tool)) {
    if (typeof call.input !== "object" || call.input === null || Array.isArray(call.input)) throw new UsageError("--input must be a JSON object");
    input = call.input as Record<string, unknown>;
  } else {
    const parsed = modelSchema(tool).safeParse(call.input);
    if (!parsed.success) throw new UsageError(`--input: ${inputValidationMessage(tool.name, parsed.error, call.input)}`);
    input = parsed.data as Record<string, unknown>;
  }
  const observable = tool.backfillObservableInput ? tool.backfillObservableInput({ ...input }, context) : input;
  const toolPermission = await tool.checkPermissions(input, context);
  let readOnly = false;
  try {
    readOnly = tool.isReadOnly(input) === true;
  } catch {
    readOnly = false;
  }
  return {
    tool,
    input: observable,
    subject: tool.permissionSubject(observable, context),
    toolPermission,
    permissionContext: context.permissionContext,
    cwd: context.workspace.cwd,
    projectDir: context.workspace.projectDir,
    readOnly,
  };
}
