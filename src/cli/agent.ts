import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { providerSummarizer } from "../agent/summarizer.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { conversationFile, latestConversationId, loadConversation, TranscriptError } from "../agent/transcript.js";
import type { AgentMessage } from "../providers/model.js";
import { createProvider, PROVIDER_NAMES, resolveProviderConfig, type ProviderConfig } from "../providers/create-provider.js";
import { isDeniedOutright } from "../registry/pool.js";
import { createSession, type Session } from "../session/session.js";
import { conversationsDir, sessionKey } from "../session/session-home.js";
import { openSessionDir, SessionDirError, type SessionDirHandle } from "../session/state-dir.js";
import { trustedProjectDirs } from "../settings/project-inputs.js";
import { loadAgentDefinitions } from "../tools/agent/index.js";
import { builtinTools } from "../tools/index.js";
import { anthropicWebSearch } from "../tools/web-search/index.js";
import { connectCliMcp, MCP_CONFIG_HELP, MCP_CONFIG_OPTIONS } from "./mcp-config.js";
import { runAgentOnce } from "./agent-run.js";
import { OUTPUT_FORMATS, type OutputFormat } from "./agent-output.js";
import { interactiveLoop } from "./agent-interactive.js";
import { positiveInt, UsageError, type CliIO } from "./io.js";
import { terminalApprover } from "./prompt.js";
import { loadExecSettings, SETTINGS_HELP, SETTINGS_OPTIONS, settingsHooks, settingsInputFrom, settingsWarnings } from "./settings.js";

export const AGENT_HELP = `Usage: armature agent [-p] [PROMPT] [options]

Runs an agent loop against a model with armature's tools. With -p (or a prompt on stdin) it
runs one prompt to the end and prints the result; without, on a terminal, it is interactive.

Model:
  --provider NAME        ${PROVIDER_NAMES.join(" | ")} (default anthropic; env ARMATURE_PROVIDER)
  --model NAME           model id (env ANTHROPIC_MODEL / OPENAI_MODEL)
  --base-url URL         API base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL); any OpenAI-compatible server
  --max-turns N          at most N model requests
  --max-tokens N         max_tokens of each request (default 16384)
  --thinking adaptive|N  Anthropic extended thinking: adaptive, or a budget of N tokens (below --max-tokens)
  --system-prompt TEXT   replace the built-in system prompt
  --append-system-prompt TEXT   add to the system prompt
Session:
  -p, --print            non-interactive: run the prompt (argument or stdin), print the result
  --output-format FMT    text | json | stream-json (default text)
  --verbose              accepted for compatibility (stream-json is always complete)
  --session-dir DIR      where conversations are saved (default: your config dir, projects/<project>/)
  --resume ID            continue the saved conversation ID
  -c, --continue         continue the most recent conversation
Permissions and settings:
${SETTINGS_HELP}${MCP_CONFIG_HELP}  --permission-mode MODE same as --mode
  --allowed-tools RULES, --allowedTools RULES        allow rules, comma or space separated (repeatable)
  --disallowed-tools RULES, --disallowedTools RULES  deny rules (a bare tool name hides the tool)
  --max-concurrency N    concurrency-safe calls at once (default 10)
  -h, --help             this text
In -p mode a call that needs approval is denied; the result lists it in permission_denials.
`;

/** `Bash(git log *) Edit,Read` → rules; splits on commas and spaces outside parentheses. */
export function splitToolRules(values: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const value of values ?? []) {
    let depth = 0;
    let current = "";
    for (const ch of value) {
      if (ch === "(") depth++;
      if (ch === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === "," || ch === " ")) {
        if (current.trim() !== "") out.push(current.trim());
        current = "";
      } else current += ch;
    }
    if (current.trim() !== "") out.push(current.trim());
  }
  return out;
}

/** `--thinking`: Anthropic's `thinking` request field. */
function thinkingConfig(value: string | undefined, provider: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (provider !== "anthropic") throw new UsageError("--thinking applies to --provider anthropic only");
  if (value === "adaptive") return { type: "adaptive" };
  const budget = positiveInt(value, "--thinking");
  return { type: "enabled", budget_tokens: budget };
}

export async function agentCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...SETTINGS_OPTIONS,
      ...MCP_CONFIG_OPTIONS,
      print: { type: "boolean", short: "p" },
      provider: { type: "string" },
      model: { type: "string" },
      "base-url": { type: "string" },
      "max-turns": { type: "string" },
      "max-tokens": { type: "string" },
      "system-prompt": { type: "string" },
      "append-system-prompt": { type: "string" },
      "output-format": { type: "string" },
      verbose: { type: "boolean" },
      "session-dir": { type: "string" },
      resume: { type: "string", short: "r" },
      continue: { type: "boolean", short: "c" },
      "permission-mode": { type: "string" },
      "allowed-tools": { type: "string", multiple: true },
      allowedTools: { type: "string", multiple: true },
      "disallowed-tools": { type: "string", multiple: true },
      disallowedTools: { type: "string", multiple: true },
      "max-concurrency": { type: "string" },
      thinking: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(AGENT_HELP);
    return 0;
  }
  const format = (values["output-format"] ?? "text") as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`--output-format must be one of ${OUTPUT_FORMATS.join(", ")}; got ${JSON.stringify(values["output-format"])}`);
  if (values.resume !== undefined && values.continue) throw new UsageError("--resume and --continue cannot be used together");
  const maxTurns = positiveInt(values["max-turns"], "--max-turns");
  const maxTokens = positiveInt(values["max-tokens"], "--max-tokens");
  const maxConcurrency = positiveInt(values["max-concurrency"], "--max-concurrency");
  const settingsInput = settingsInputFrom({ ...values, mode: values.mode ?? values["permission-mode"] });
  settingsInput.cli.allow = [...(settingsInput.cli.allow ?? []), ...splitToolRules([...(values["allowed-tools"] ?? []), ...(values.allowedTools ?? [])])];
  settingsInput.cli.deny = [...(settingsInput.cli.deny ?? []), ...splitToolRules([...(values["disallowed-tools"] ?? []), ...(values.disallowedTools ?? [])])];
  const cwd = settingsInput.cwd;

  const interactive = !values.print && positionals.length === 0 && io.isTTY;
  let prompt: string | undefined;
  if (!interactive) {
    prompt = positionals.length > 0 ? positionals.join(" ") : (await io.readStdin()).trim();
    if (prompt === "") throw new UsageError("no prompt: give one as an argument (armature agent -p \"PROMPT\") or on stdin");
  }

  const settings = await loadExecSettings(settingsInput);
  let config: ProviderConfig;
  try {
    config = resolveProviderConfig({ provider: values.provider, model: values.model, baseURL: values["base-url"] }, process.env, settings.env);
  } catch (err) {
    throw new UsageError(`--provider: ${(err as Error).message}`);
  }
  const thinking = thinkingConfig(values.thinking, config.provider);
  const provider = createProvider(config.provider, { ...config, ...(thinking ? { extraBody: { thinking } } : {}) });

  // Where the conversation lives: a new id, or the one resumed.
  let sessionsDir: string;
  let signingKey: Buffer;
  try {
    sessionsDir = await conversationsDir(cwd, values["session-dir"]);
    signingKey = await sessionKey();
  } catch (err) {
    throw new UsageError(`${values["session-dir"] !== undefined ? "--session-dir" : "the sessions folder"}: ${(err as Error).message}`);
  }
  let sessionId: string = randomUUID();
  let history: AgentMessage[] = [];
  const resumeId = values.continue ? await latestConversationId(sessionsDir) : values.resume;
  if (values.continue && resumeId === undefined) throw new UsageError(`--continue: no saved conversation in ${sessionsDir}`);
  if (resumeId !== undefined) {
    if (!/^[\w.-]+$/.test(resumeId)) throw new UsageError(`--resume: ${JSON.stringify(resumeId)} is not a session id`);
    try {
      history = await loadConversation(conversationFile(sessionsDir, resumeId));
    } catch (err) {
      if (err instanceof TranscriptError) throw new UsageError(`--resume: ${err.message}`);
      throw err;
    }
    sessionId = resumeId;
  }
  try {
    await mkdir(join(sessionsDir, sessionId), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new UsageError(`--session-dir: cannot use ${sessionsDir} as a folder: ${(err as Error).message}`);
  }
  // The session's state (files read with their hashes, cwd, rules allowed "always", task records)
  // is kept beside the conversation, so --resume goes on where the run stopped; one process at a time.
  let stateDir: SessionDirHandle;
  try {
    stateDir = await openSessionDir(join(sessionsDir, sessionId), { signing: { key: signingKey, projectDir: cwd } });
  } catch (err) {
    if (err instanceof SessionDirError) throw new UsageError(`--resume: ${err.message}`);
    throw err;
  }

  for (const what of stateDir.dropped) io.stderr.write(`armature: not restored from the saved session: ${what}\n`);
  const ref: { session?: Session } = {};
  const hooks = settingsHooks(settings, cwd, () => ref.session!.context, io);
  // Sub-agent types: the user's own, and the project's once the project is trusted.
  const home = settingsInput.home ?? homedir();
  const claude = (values["settings-from"] ?? []).includes("claude");
  const agentDirs = [
    join(home, ".armature", "agents"),
    ...(claude ? [join(home, ".claude", "agents")] : []),
    ...trustedProjectDirs(cwd, "agents", { trusted: settings.loaded.trust.trusted, claude }),
  ];
  const agentFiles = await loadAgentDefinitions(agentDirs);
  for (const problem of agentFiles.errors) io.stderr.write(`armature: agent file left out: ${problem}\n`);
  const tools = builtinTools({
    subagents: { agents: agentFiles.agents, ...(hooks ? { hooks } : {}) },
    // WebFetch answers its prompt with the run's model; WebSearch is the Anthropic server tool.
    webFetch: { summarize: providerSummarizer(provider, config.model) },
    ...(config.provider === "anthropic"
      ? { webSearch: anthropicWebSearch({ model: config.model, ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}), ...(config.baseURL !== undefined ? { baseURL: config.baseURL } : {}) }) }
      : {}),
  });
  for (const warning of settingsWarnings(settings, tools)) io.stderr.write(`armature: ${warning}\n`);
  const session = createSession({
    sessionId,
    sessionDir: join(sessionsDir, sessionId),
    hooks,
    cwd,
    tools,
    rules: settings.rules,
    permissionMode: settings.mode,
    additionalDirectories: settings.additionalDirectories,
    env: settings.env,
    maxConcurrency,
    model: config.model,
    // -p: a call that needs approval is denied (no approver); interactive: asked on the terminal.
    canUseTool: interactive ? terminalApprover(io) : undefined,
    toolSource: await connectCliMcp(values, settings, cwd, io),
    ...(resumeId !== undefined && stateDir.snapshot ? { restore: stateDir.snapshot } : {}),
  });
  ref.session = session;
  const visible = session.context.options.tools.filter((t) => !isDeniedOutright(t, session.context.permissionContext)).map((t) => t.name);
  let system = values["system-prompt"] ?? (await buildSystemPrompt({ cwd, toolNames: visible, projectTrusted: settings.loaded.trust.trusted }));
  if (values["append-system-prompt"] !== undefined) system = `${system}\n\n${values["append-system-prompt"]}`;

  const run = {
    session,
    provider,
    model: config.model,
    system,
    hooks,
    maxTurns,
    maxTokens,
    conversationPath: conversationFile(sessionsDir, sessionId),
    messages: history,
  };
  const apiKeySource = config.apiKey !== undefined ? `${config.provider === "anthropic" ? "ANTHROPIC" : "OPENAI"}_API_KEY` : "none";
  const info = { cwd, sessionId, model: config.model, tools: visible, permissionMode: settings.mode, apiKeySource, provider: config.provider };
  try {
    if (interactive) return await interactiveLoop(run, io, info);
    return await runAgentOnce({ ...run, prompt: prompt! }, io, format, info);
  } finally {
    await session.close();
    try {
      await stateDir.save(session.snapshot());
    } catch (err) {
      io.stderr.write(`armature: could not save the session state in ${stateDir.dir}: ${(err as Error).message}\n`);
    } finally {
      stateDir.release();
    }
  }
}
