import type { FeatureFlags, ToolRegistration } from "../registry/pool.js";
import { selectBaseTools } from "../registry/pool.js";
import type { Tool } from "../tool/types.js";
import { BashTool } from "./bash/index.js";
import { TaskOutputTool } from "./task-output/index.js";
import { TaskStopTool } from "./task-stop/index.js";
import { createGlobTool } from "./glob/index.js";
import { createGrepTool } from "./grep/index.js";
import { EditTool, MultiEditTool } from "./edit/index.js";
import { NotebookEditTool } from "./notebook-edit/index.js";
import { ReadTool } from "./read/index.js";
import { WriteTool } from "./write/index.js";
import { AskUserQuestionTool } from "./ask-user-question/index.js";
import { EnterPlanModeTool, ExitPlanModeTool } from "./plan-mode/index.js";
import { TodoWriteTool } from "./todo-write/index.js";
import { createWebFetchTool, WebFetchTool, type WebFetchOptions } from "./web-fetch/index.js";
import { createWebSearchTool, type WebSearchBackend } from "./web-search/index.js";
import { createAgentTool, type AgentToolOptions } from "./agent/index.js";
import { createSkillTool, type SkillToolOptions } from "./skill/index.js";
import { EnterWorktreeTool, ExitWorktreeTool } from "./worktree/index.js";

/**
 * The built-in tools, each behind its feature flag where it has one. Tools register here as
 * they are added (one folder each under src/tools/).
 */
export function builtinToolRegistrations(options: BuiltinToolOptions = {}): ToolRegistration[] {
  return [
    { tool: BashTool },
    { tool: TaskOutputTool },
    { tool: TaskStopTool },
    { tool: ReadTool },
    { tool: WriteTool },
    { tool: EditTool },
    { tool: MultiEditTool },
    { tool: NotebookEditTool, feature: "notebook", defaultOn: true },
    { tool: createGlobTool() },
    { tool: createGrepTool() },
    { tool: TodoWriteTool, feature: "todos", defaultOn: true },
    { tool: EnterPlanModeTool, feature: "planMode", defaultOn: true },
    { tool: ExitPlanModeTool, feature: "planMode", defaultOn: true },
    { tool: AskUserQuestionTool, feature: "questions", defaultOn: true },
    { tool: EnterWorktreeTool, feature: "worktrees", defaultOn: true },
    { tool: ExitWorktreeTool, feature: "worktrees", defaultOn: true },
    { tool: options.webFetch ? createWebFetchTool(options.webFetch) : WebFetchTool, feature: "web", defaultOn: true },
    // WebSearch exists only with a backend: a tool that always fails is worse than none.
    ...(options.webSearch ? [{ tool: createWebSearchTool({ backend: options.webSearch }), feature: "web", defaultOn: true }] : []),
    // Agent needs a model: it is there for agent loops that ask for it, not for `exec`.
    ...(options.subagents ? [{ tool: createAgentTool(options.subagents === true ? {} : options.subagents) }] : []),
    // Skill exists when the host found skills for the session (`loadSkills`, gated by trust).
    ...(options.skills ? [{ tool: createSkillTool(options.skills) }] : []),
  ];
}

export interface BuiltinToolOptions {
  /** Feature flags by name; a tool whose flag is off is not in the pool. */
  features?: FeatureFlags;
  /** WebFetch settings: hosts allowed besides public ones, a summarizer model, limits. */
  webFetch?: WebFetchOptions;
  /** Where WebSearch searches; without one there is no WebSearch tool. */
  webSearch?: WebSearchBackend;
  /** The Agent tool (sub-agents), for sessions an agent loop drives; its options or true. */
  subagents?: AgentToolOptions | true;
  /** The Skill tool and the skills it offers. */
  skills?: SkillToolOptions;
}

/** The standard tool set, ready for `createSession({ tools: builtinTools() })`. */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return selectBaseTools(builtinToolRegistrations(options), options.features).map((r) => r.tool);
}
