import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { ShellCommandFacts, Tool, ToolUseContext } from "../../tool/types.js";
import { analyzeCommand, bashGrammarLoaded, ensureBashGrammar, runProducers } from "../../shell/index.js";
import { backgroundTasksDisabled, commandEnv, HARD_MAX_OUTPUT_CHARS } from "./config.js";
import { executeBash, type BashToolOptions, type CallSandbox } from "./execute.js";
import { sandboxActive } from "../../sandbox/boundary.js";
import { restrictiveReadRules } from "../../permissions/match.js";
import { readNarrowingEvidence } from "../../permissions/read-narrowing.js";
import {
  BACKGROUND_DESCRIPTION,
  BASH_TOOL_NAME,
  bashDescription,
  DESCRIPTION_DESCRIPTION,
  DISABLE_SANDBOX_DESCRIPTION,
  TIMEOUT_DESCRIPTION,
} from "./prompt.js";
import { bashResultBlock, type BashOutput } from "./result.js";
import { sandboxConfigFromEnv, statusFromConfig } from "./sandbox.js";

export const bashInputSchema = z.object({
  command: z.string().describe("The command to run"),
  timeout: z.number().optional().describe(TIMEOUT_DESCRIPTION),
  description: z.string().optional().describe(DESCRIPTION_DESCRIPTION),
  run_in_background: z.boolean().optional().describe(BACKGROUND_DESCRIPTION),
  dangerouslyDisableSandbox: z.boolean().optional().describe(DISABLE_SANDBOX_DESCRIPTION),
});

export type BashInput = z.infer<typeof bashInputSchema>;

/** Analysis results by command: every stage of one call (and its retries) parses it once. */
const factsCache = new Map<string, ShellCommandFacts>();
const FACTS_CACHE_SIZE = 128;

/**
 * The grammar-based facts of a command; an analyser failure is "not read-only, not understood".
 * Throws (and caches nothing) while the grammar is not loaded: the tool's `load()` loads it, and
 * the runtime awaits that before it asks.
 */
export function commandFacts(command: string): ShellCommandFacts {
  const cached = factsCache.get(command);
  if (cached) {
    factsCache.delete(command);
    factsCache.set(command, cached);
    return cached;
  }
  if (!bashGrammarLoaded()) {
    throw new Error("the Bash grammar is not loaded yet: await the Bash tool's load() (or ensureBashGrammar()) before asking about a command");
  }
  let facts: ShellCommandFacts;
  try {
    facts = analyzeCommand(command);
  } catch (err) {
    facts = {
      command,
      subcommands: [],
      writeTargets: [],
      readTargets: [],
      cdTargets: [],
      readOnly: false,
      complete: false,
      reasons: [`the command could not be analysed: ${(err as Error).message}`],
    };
  }
  factsCache.set(command, facts);
  if (factsCache.size > FACTS_CACHE_SIZE) factsCache.delete(factsCache.keys().next().value as string);
  return facts;
}

export function createBashTool(options: BashToolOptions = {}): Tool<typeof bashInputSchema, BashOutput> {
  let explicit: CallSandbox | undefined;
  /** A host's explicit option, else the session's sandbox, else ARMATURE_SANDBOX=1 for a tool used on its own. */
  const sandboxFor = (context: ToolUseContext | undefined): CallSandbox => {
    if (options.sandbox) return (explicit ??= { status: statusFromConfig(options.sandbox, process.env), network: options.sandbox.allowNetwork === true });
    const fromSession = context?.permissionContext.sandbox;
    if (fromSession) return { status: fromSession };
    const fromEnv = sandboxConfigFromEnv(process.env);
    return fromEnv ? { status: statusFromConfig(fromEnv, process.env), network: fromEnv.allowNetwork === true } : { status: undefined };
  };

  return buildTool({
    name: BASH_TOOL_NAME,
    searchHint: "run shell commands, scripts, git, npm, tests",
    inputSchema: bashInputSchema,
    // The tool keeps its own output inline-bounded (head and tail); the generic persistence
    // must not cut it again.
    maxResultSizeChars: HARD_MAX_OUTPUT_CHARS + 10_000,
    description: (context) => bashDescription({ sandboxed: sandboxActive(sandboxFor(context).status) }),

    load: ensureBashGrammar,
    isReadOnly: (input) => commandFacts(input.command).readOnly,
    isConcurrencySafe: (input) => commandFacts(input.command).readOnly,
    // A failing command makes the commands the model ran next to it pointless or harmful.
    abortsSiblingsOnError: () => true,
    getToolUseSummary: (input) => input.description ?? (input.command.length > 80 ? `${input.command.slice(0, 77)}...` : input.command),

    validateInput(input) {
      if (input.command.trim() === "") {
        return { result: false, message: "The command is empty. Give the shell command to run.", errorCode: "empty_command" };
      }
      if (input.command.includes("\0")) {
        return { result: false, message: "The command contains a NUL character, which a shell command cannot hold. Remove it.", errorCode: "nul_in_command" };
      }
      if (input.timeout !== undefined && !(Number.isInteger(input.timeout) && input.timeout > 0)) {
        return { result: false, message: `timeout must be a whole, positive number of milliseconds (e.g. 60000 for a minute); got ${input.timeout}. Leave it out for the default.`, errorCode: "bad_timeout" };
      }
      if (input.run_in_background && backgroundDisabled()) {
        return {
          result: false,
          message: "Background commands are disabled in this session. Run the command in the foreground (without run_in_background).",
          errorCode: "background_disabled",
        };
      }
      return { result: true };
    },

    // Computes the analysis once for hooks and the permission engine (the cached value is what
    // isReadOnly, permissionSubject and call use); the input itself is shown unchanged.
    backfillObservableInput(input) {
      commandFacts(input.command);
      return input;
    },

    async checkPermissions(input, context) {
      const sandbox = sandboxFor(context).status;
      if (!input.dangerouslyDisableSandbox || !sandboxActive(sandbox)) {
        // `wc -l $(git ls-files)`: what the producers print now is what the decision judges;
        // they run here, once for the call, without holding up the event loop.
        // Likewise what git lists and the directories below the roots of recursive readers
        // (`rg`, `git grep`, `find`) when Read rules restrict some paths: the narrowing judges it.
        const facts = commandFacts(input.command);
        const narrows = restrictiveReadRules(context.permissionContext.rules).length > 0 && facts.subcommands.some((s) => s.reader && s.reader.limit !== "all" && s.reader.recursive.length > 0);
        if (!facts.producers && !narrows) return { behavior: "passthrough" };
        const env = commandEnv(options.baseEnv ?? process.env, context.session.env);
        const signal = context.abortController.signal;
        const produced = facts.producers ? await runProducers(facts.producers, { cwd: context.workspace.cwd, commandEnv: env, signal }) : undefined;
        const narrowing = narrows ? await readNarrowingEvidence(facts, context.workspace.cwd, env, signal) : undefined;
        return { behavior: "passthrough", subject: { kind: "shell", facts, ...(facts.producers && { produced }), ...(narrows && { narrowing: narrowing ?? { git: {}, directories: {} } }) } };
      }
      if (!sandbox.allowUnsandboxedCommands) {
        return {
          behavior: "deny",
          message: "Running commands outside the sandbox is turned off in this session. Run the command without dangerouslyDisableSandbox.",
        };
      }
      return { behavior: "ask", message: `Run outside the OS sandbox: ${input.command}` };
    },

    permissionSubject: (input) => ({ kind: "shell", facts: commandFacts(input.command) }),

    async call(input, context: ToolUseContext, onProgress) {
      const { data, nextCwd } = await executeBash(input, commandFacts(input.command), context, options, sandboxFor(context), onProgress);
      if (nextCwd === undefined) return { data };
      // The cwd moves through a context modifier, applied in tool_use order after the call (after
      // the batch for concurrent calls), so calls that run side by side see the same cwd.
      return { data, contextModifier: (ctx) => ({ ...ctx, workspace: { ...ctx.workspace, cwd: nextCwd } }) };
    },

    mapToolResultToToolResultBlockParam: bashResultBlock,
  });
}

function backgroundDisabled(): boolean {
  return backgroundTasksDisabled(process.env);
}

export const BashTool = createBashTool();
