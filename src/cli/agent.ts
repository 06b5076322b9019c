import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { providerSummarizer } from "../agent/summarizer.js";
import { buildSystemPrompt, gitSummary, projectNotesSection } from "../agent/system-prompt.js";
import { conversationFile, latestConversationId, loadConversation, TranscriptError } from "../agent/transcript.js";
import type { AgentMessage, Usage } from "../providers/model.js";
import { createProvider, PROVIDER_NAMES, resolveProviderConfig, type ProviderConfig } from "../providers/create-provider.js";
import { isDeniedOutright } from "../registry/pool.js";
import { createSession, type Session } from "../session/session.js";
import { conversationsDir, sessionKey } from "../session/session-home.js";
import { openSessionDir, SessionDirError, type SessionDirHandle } from "../session/state-dir.js";
import { SETTING_SOURCES, userDirFor, type SettingSource } from "../settings/load.js";
import { trustedProjectDirs } from "../settings/project-inputs.js";
import { loadAgentDefinitions } from "../tools/agent/index.js";
import { builtinTools } from "../tools/index.js";
import { anthropicWebSearch } from "../tools/web-search/index.js";
import { connectCliMcp, hostMcpEntries, MCP_CONFIG_HELP, MCP_CONFIG_OPTIONS } from "./mcp-config.js";
import { runAgentOnce } from "./agent-run.js";
import { existingOutputs, namedInConversations, removeUnnamedOutputs } from "./named-outputs.js";
import { AgentOutput, OUTPUT_FORMATS, type OutputFormat } from "./agent-output.js";
import { interactiveLoop } from "./agent-interactive.js";
import { positiveInt, UsageError, type CliIO } from "./io.js";
import { terminalApprover } from "./prompt.js";
import { exitOnSignals } from "../session/signals.js";
import { probeSandboxSoon } from "../sandbox/probe.js";
import { taskRegistry } from "../tasks/registry.js";
import { disabledForSession } from "../tools/util/interactive.js";
import { ruleNamesTool } from "../permissions/resolve.js";
import type { ApiRetry } from "../providers/retry-observer.js";
import type { AgentDefinition } from "../tools/agent/agent-types.js";
import type { Approver } from "../permissions/types.js";
import type { HookRunner } from "../hooks/types.js";
import { PERMISSION_MODES, type PermissionMode, type Tool } from "../tool/types.js";
import { ControlChannel, type ControlRequestEnvelope } from "./agent/control-channel.js";
import { ignoredFlagsGiven, REFERENCE_FLAG_OPTIONS, REFUSED_FLAGS } from "./agent/reference-flags.js";
import { referenceRefusalText } from "./agent/reference-texts.js";
import { sdkApprover } from "./agent/sdk-approver.js";
import { sdkHookRunner, type SdkHookConfig } from "./agent/sdk-hooks.js";
import { ControlMcpTransport } from "./agent/sdk-mcp-transport.js";
import { runStreamSession } from "./agent/stream-session.js";
import { readSessionUsage, writeSessionUsage } from "./agent/session-usage.js";
import { CLAUDE_CODE_PROTOCOL_VERSION } from "./agent/protocol-version.js";
import { accountInfo, expandSkillCommand, skillCommands, supportedModels } from "./agent/sdk-catalog.js";
import { modelAliases, ModelAliasError, resolveModelAlias } from "../providers/model-aliases.js";
import type { Skill } from "../skills/load-skills.js";
import { STRUCTURED_OUTPUT_TOOL, structuredOutputTool, type StructuredOutputHolder } from "./agent/structured-output.js";
import { cliSkills, skillToolOptions } from "./skills.js";
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
  --input-format FMT     text | stream-json: user messages and the Agent SDK's control protocol on stdin
                         (needs --output-format stream-json); see README "Use armature as the Claude
                         Agent SDK's engine"
  --include-partial-messages   stream_event lines with the model's deltas (stream-json)
  --json-schema JSON     the answer as structured data fitting this schema (result.structured_output)
  --max-budget-usd N     stop once the run's cost (README price table) passes N dollars
  --session-id UUID      the id of a new conversation; --fork-session: resume into a new id
  --session-dir DIR      where conversations are saved (default: your config dir, projects/<project>/)
  --resume ID            continue the saved conversation ID
  -c, --continue         continue the most recent conversation
Permissions and settings:
${SETTINGS_HELP}${MCP_CONFIG_HELP}  --permission-mode MODE same as --mode
  --allowed-tools RULES, --allowedTools RULES        allow rules, comma or space separated (repeatable)
  --disallowed-tools RULES, --disallowedTools RULES  deny rules (a bare tool name hides the tool)
  --dangerously-skip-permissions   same as --permission-mode bypassPermissions
  --tools NAMES          only these built-in tools (comma separated; "" none, "default" all)
  --permission-prompt-tool stdio   ask the SDK host (can_use_tool) when a call needs approval
  --max-concurrency N    concurrency-safe calls at once (default 10)
  -h, --help             this text
The other flags the Agent SDK passes are accepted; those with no effect here are listed in the
init event's armature_ignored_flags. With no subcommand, flags alone (armature --print …) mean agent.
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
  if (value === undefined || value === "disabled") return undefined;
  if (provider !== "anthropic") throw new UsageError("--thinking applies to --provider anthropic only");
  if (value === "adaptive") return { type: "adaptive" };
  const budget = positiveInt(value, "--thinking");
  return { type: "enabled", budget_tokens: budget };
}

const AGENT_OPTIONS = {
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
  ...REFERENCE_FLAG_OPTIONS,
  help: { type: "boolean", short: "h" },
} as const;

export async function agentCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseAgentArgs(argv);
  // Bash's description says whether the sandbox runs: bwrap is tried while the run is prepared.
  probeSandboxSoon();
  if (values.help) {
    io.stdout.write(AGENT_HELP);
    return 0;
  }
  for (const [flag, why] of Object.entries(REFUSED_FLAGS)) {
    if ((values as Record<string, unknown>)[flag] !== undefined) throw new UsageError(`--${flag} is not supported: ${why}`);
  }
  const format = (values["output-format"] ?? "text") as OutputFormat;
  const inputFormat = values["input-format"] ?? "text";
  if (inputFormat !== "text" && inputFormat !== "stream-json") throw new UsageError(`--input-format must be text or stream-json; got ${JSON.stringify(inputFormat)}`);
  const streamInput = inputFormat === "stream-json";
  if (streamInput && format !== "stream-json") throw new UsageError("--input-format stream-json needs --output-format stream-json");
  const promptTool = values["permission-prompt-tool"];
  if (promptTool !== undefined && (promptTool !== "stdio" || !streamInput)) {
    throw new UsageError(`--permission-prompt-tool: only "stdio" (with --input-format stream-json) is supported; got ${JSON.stringify(promptTool)}`);
  }
  if (values["fork-session"] && values.resume === undefined && !values.continue) throw new UsageError("--fork-session needs --resume or --continue");
  const sessionIdFlag = values["session-id"];
  if (sessionIdFlag !== undefined && !/^[\w.-]+$/.test(sessionIdFlag)) throw new UsageError(`--session-id: ${JSON.stringify(sessionIdFlag)} is not a session id`);
  const maxBudgetUsd = values["max-budget-usd"] === undefined ? undefined : Number(values["max-budget-usd"]);
  if (maxBudgetUsd !== undefined && !(maxBudgetUsd > 0)) throw new UsageError(`--max-budget-usd must be a positive number of dollars; got ${JSON.stringify(values["max-budget-usd"])}`);
  let jsonSchema: Record<string, unknown> | undefined;
  if (values["json-schema"] !== undefined) jsonSchema = parseJsonObject(values["json-schema"], "--json-schema");
  if (values["dangerously-skip-permissions"] && values.mode === undefined && values["permission-mode"] === undefined) values["permission-mode"] = "bypassPermissions";
  // `--settings '{…}'` (the reference takes a file or inline JSON): the JSON goes through a file.
  let inlineSettingsDir: string | undefined;
  if (values.settings !== undefined && values.settings.trim().startsWith("{")) {
    parseJsonObject(values.settings, "--settings");
    inlineSettingsDir = await mkdtemp(join(tmpdir(), "armature-settings-"));
    const file = join(inlineSettingsDir, "settings.json");
    await writeFile(file, values.settings);
    values.settings = file;
  }
  try {
    return await agentWithValues(values, positionals, io, { format, streamInput, jsonSchema, maxBudgetUsd, sessionIdFlag });
  } finally {
    if (inlineSettingsDir !== undefined) await rm(inlineSettingsDir, { recursive: true, force: true });
  }
}

function parseJsonObject(text: string, flag: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag}: not valid JSON (${(err as Error).message})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError(`${flag}: must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** `--tools`: the built-in tools kept (undefined: all). */
function toolFilter(values: readonly string[] | undefined): Set<string> | undefined {
  if (values === undefined) return undefined;
  const names = splitToolRules(values);
  if (names.length === 1 && names[0] === "default") return undefined;
  return new Set(names.map((n) => (n === "Task" ? "Agent" : n)));
}

/** `initialize.agents`: the host's sub-agent types, as armature's definitions. */
function sdkAgents(value: unknown): AgentDefinition[] {
  if (typeof value !== "object" || value === null) return [];
  const out: AgentDefinition[] = [];
  for (const [name, raw] of Object.entries(value as Record<string, Record<string, unknown>>)) {
    if (typeof raw?.description !== "string" || typeof raw.prompt !== "string") continue;
    const def: AgentDefinition = { name, description: raw.description, systemPrompt: raw.prompt, readOnly: false, source: "sdk" };
    if (Array.isArray(raw.tools)) def.tools = raw.tools.filter((t): t is string => typeof t === "string");
    if (typeof raw.model === "string" && raw.model !== "inherit") def.model = raw.model;
    out.push(def);
  }
  return out;
}

interface AgentModeOptions {
  format: OutputFormat;
  streamInput: boolean;
  jsonSchema: Record<string, unknown> | undefined;
  maxBudgetUsd: number | undefined;
  sessionIdFlag: string | undefined;
}

type AgentValues = ReturnType<typeof parseAgentArgs>["values"];

function parseAgentArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: AGENT_OPTIONS,
  });
}

async function agentWithValues(values: AgentValues, positionals: string[], io: CliIO, mode: AgentModeOptions): Promise<number> {
  const { format, streamInput } = mode;
  if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`--output-format must be one of ${OUTPUT_FORMATS.join(", ")}; got ${JSON.stringify(values["output-format"])}`);
  if (values.resume !== undefined && values.continue) throw new UsageError("--resume and --continue cannot be used together");
  const maxTurns = positiveInt(values["max-turns"], "--max-turns");
  const maxTokens = positiveInt(values["max-tokens"], "--max-tokens");
  const maxConcurrency = positiveInt(values["max-concurrency"], "--max-concurrency");
  const settingsInput = settingsInputFrom({ ...values, mode: values.mode ?? values["permission-mode"] });
  settingsInput.cli.allow = [...(settingsInput.cli.allow ?? []), ...splitToolRules([...(values["allowed-tools"] ?? []), ...(values.allowedTools ?? [])])];
  settingsInput.cli.deny = [...(settingsInput.cli.deny ?? []), ...splitToolRules([...(values["disallowed-tools"] ?? []), ...(values.disallowedTools ?? [])])];
  const cwd = settingsInput.cwd;
  // The reference's settings levels: `--setting-sources` names those read (absent: all); as the
  // SDK's engine armature reads the reference's `.claude/` files beside its own, as
  // `--settings-from claude` does.
  const settingSources = parseSettingSources(values["setting-sources"]);
  if (settingSources !== undefined) settingsInput.settingSources = settingSources;
  if (streamInput && !(settingsInput.settingsFrom ?? []).includes("claude")) settingsInput.settingsFrom = [...(settingsInput.settingsFrom ?? []), "claude"];

  const interactive = !streamInput && !values.print && positionals.length === 0 && io.isTTY;
  let prompt: string | undefined;
  if (!interactive && !streamInput) {
    prompt = positionals.length > 0 ? positionals.join(" ") : (await io.readStdin()).trim();
    if (prompt === "") throw new UsageError("no prompt: give one as an argument (armature agent -p \"PROMPT\") or on stdin");
  }
  // stream-json input: the SDK host's messages and control requests. Its `initialize` (hooks,
  // in-process MCP servers, agents, system prompt, schema) is read before the session is built.
  let channel: ControlChannel | undefined;
  let pump: Promise<void> | undefined;
  let init: ControlRequestEnvelope | undefined;
  if (streamInput) {
    if (positionals.length > 0) throw new UsageError("--input-format stream-json reads the prompt from stdin; a prompt argument is not allowed");
    channel = new ControlChannel((line) => io.stdout.write(line), (text) => io.stderr.write(`armature: ${text}\n`));
    pump = channel.pump(io.stdinLines ? io.stdinLines() : splitLines(io.readStdin()));
    init = await channel.initialize();
  }
  const initRequest: Record<string, unknown> = init?.request ?? {};
  // The host may say the person accepted this folder (`workspaceTrust`): the project's own
  // configuration is trusted for this run, as with --trust-project.
  if (hostTrusts(initRequest.workspaceTrust, cwd)) settingsInput.trustProject = true;
  const initPrompt = Array.isArray(initRequest.systemPrompt) ? initRequest.systemPrompt.filter((p): p is string => typeof p === "string").join("\n\n") : undefined;
  // The system prompt's git line: git runs while the settings, tools and MCP servers are prepared.
  const git = values["system-prompt"] === undefined && initPrompt === undefined ? gitSummary(cwd) : undefined;

  // SDK 0.3.337's other deliveries in initialize (settingsDelivery, disallowedToolsDelivery,
  // additionalDirectoriesDelivery: 'initialize'): what --settings, --disallowedTools and
  // --add-dir would have carried, confirmed in the reply.
  const delivered = applyInitializeDeliveries(initRequest, settingsInput);
  let settings: Awaited<ReturnType<typeof loadExecSettings>>;
  try {
    if (delivered.settings !== undefined) settingsInput.settingsFile = await delivered.settings.write();
    settings = await loadExecSettings(settingsInput);
  } finally {
    await delivered.settings?.remove();
  }
  let config: ProviderConfig;
  try {
    config = resolveProviderConfig({ provider: values.provider, model: values.model, baseURL: values["base-url"] }, process.env, settings.env);
  } catch (err) {
    throw new UsageError(`--provider: ${(err as Error).message}`);
  }
  // `--model opus` and the other aliases: the current model of the family (or the settings' mapping).
  const aliasEnv = { ...process.env, ...settings.env };
  try {
    config = { ...config, model: resolveModelAlias(config.model, config.provider, aliasEnv) };
  } catch (err) {
    if (err instanceof ModelAliasError) throw new UsageError(`--model: ${err.message}`);
    throw err;
  }
  const aliases = modelAliases(config.provider, aliasEnv);
  const maxThinking = values["max-thinking-tokens"];
  const thinking = thinkingConfig(values.thinking ?? maxThinking, config.provider);
  // The SDK's retries of a failed request, for the output to report (set once the output exists).
  const retries: { emit?: (retry: ApiRetry) => void } = {};
  const provider = createProvider(config.provider, { ...config, ...(thinking ? { extraBody: { thinking } } : {}), onRetry: (retry) => retries.emit?.(retry) });

  // Where the conversation lives: a new id, or the one resumed (--fork-session: copied to a new id).
  let sessionsDir: string;
  let signingKey: Buffer;
  try {
    sessionsDir = await conversationsDir(cwd, values["session-dir"] === undefined ? undefined : resolve(values["session-dir"]));
    signingKey = await sessionKey();
  } catch (err) {
    throw new UsageError(`${values["session-dir"] !== undefined ? "--session-dir" : "the sessions folder"}: ${(err as Error).message}`);
  }
  let sessionId: string = mode.sessionIdFlag ?? randomUUID();
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
    if (!values["fork-session"]) sessionId = resumeId;
  }
  const forked = resumeId !== undefined && values["fork-session"] === true;
  try {
    await mkdir(join(sessionsDir, sessionId), { recursive: true, mode: 0o700 });
    if (forked) await copyFile(conversationFile(sessionsDir, resumeId), conversationFile(sessionsDir, sessionId));
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
  const ref: { session?: Session; abortRun?: (reason: string) => void } = {};
  let hooks: HookRunner | undefined = settingsHooks(settings, cwd, () => ref.session!.context, io);
  if (channel) {
    const sdk = sdkHookRunner(initRequest.hooks as SdkHookConfig | undefined, channel, hooks);
    for (const problem of sdk.problems) io.stderr.write(`armature: ${problem}\n`);
    hooks = sdk.runner;
  }
  // Sub-agent types: the user's own, and the project's once the project is trusted; the SDK host's.
  const home = settingsInput.home ?? homedir();
  const claude = (settingsInput.settingsFrom ?? []).includes("claude");
  const agentDirs = [
    join(userDirFor(settingsInput, home), "agents"),
    ...(claude ? [join(home, ".claude", "agents")] : []),
    ...trustedProjectDirs(cwd, "agents", { trusted: settings.loaded.trust.trusted, claude }),
  ];
  const agentFiles = await loadAgentDefinitions(agentDirs);
  for (const problem of agentFiles.errors) io.stderr.write(`armature: agent file left out: ${problem}\n`);
  const agents = [...agentFiles.agents, ...sdkAgents(initRequest.agents)];
  const skills = await cliSkills(settings, settingsInput);
  let tools: Tool[] = builtinTools({
    subagents: { agents, skills, models: aliases, ...(hooks ? { hooks } : {}) },
    ...skillToolOptions(skills),
    // WebFetch answers its prompt with the run's model; WebSearch is the Anthropic server tool.
    webFetch: { summarize: providerSummarizer(provider, config.model) },
    ...(config.provider === "anthropic"
      ? { webSearch: anthropicWebSearch({ model: config.model, ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}), ...(config.baseURL !== undefined ? { baseURL: config.baseURL } : {}) }) }
      : {}),
  });
  const keep = toolFilter(values.tools);
  if (keep) tools = tools.filter((t) => keep.has(t.name));
  const jsonSchema = mode.jsonSchema ?? (typeof initRequest.jsonSchema === "object" && initRequest.jsonSchema !== null ? (initRequest.jsonSchema as Record<string, unknown>) : undefined);
  const structured: StructuredOutputHolder | undefined = jsonSchema ? { given: false } : undefined;
  if (jsonSchema && structured) tools = [...tools, structuredOutputTool(jsonSchema, structured)];
  for (const warning of settingsWarnings(settings, tools)) io.stderr.write(`armature: ${warning}\n`);
  // A tool denied outright (`--disallowedTools Bash`, a bare deny rule) is off for the session, as
  // in the reference: hidden from the model, and a call of it answered as for a tool that is not there.
  const outright = new Set(tools.filter((t) => settings.rules.some((r) => r.behavior === "deny" && r.ruleContent === undefined && ruleNamesTool(r, t.name, t.mcpServer))).map((t) => t.name));
  tools = tools.map((t) => (outright.has(t.name) ? { ...t, validateInput: () => disabledForSession(t.name) } : t));

  // MCP: the configured servers, and the SDK host's: its in-process ones (reached over the
  // channel) and, from SDK 0.3.337 on, the others it sends in initialize instead of --mcp-config.
  const sdkServers = Array.isArray(initRequest.sdkMcpServers) ? initRequest.sdkMcpServers.filter((n): n is string => typeof n === "string") : [];
  const hostServers = hostMcpEntries(initRequest.mcpServers, cwd, "the SDK host (initialize.mcpServers)");
  for (const problem of hostServers.problems) io.stderr.write(`armature: MCP server left out: ${problem}\n`);
  const account = accountInfo(config, apiKeySourceOf(config));
  // The host answers `initialize` before any mcp_message: it waits for this reply first.
  if (channel && init) {
    channel.respond(init, {
      ...initializeResponse({ agents, hooks: hooks !== undefined, mcpServers: initRequest.mcpServers !== undefined, models: supportedModels(config, aliases), account, skills }),
      ...delivered.applied,
    });
  }
  const toolSource = await connectCliMcp(
    values,
    settings,
    cwd,
    io,
    channel ? { servers: sdkServers, configured: hostServers.entries, transport: (name: string) => new ControlMcpTransport(channel, name) } : undefined,
  );

  let approver: Approver | undefined = interactive ? terminalApprover(io, cwd) : undefined;
  if (channel && values["permission-prompt-tool"] === "stdio") {
    approver = sdkApprover(channel, {
      setMode: (m) => {
        const s = ref.session;
        if (s && (PERMISSION_MODES as readonly string[]).includes(m)) s.context.permissionContext = { ...s.context.permissionContext, mode: m as PermissionMode };
      },
      interrupt: (reason) => ref.abortRun?.(reason),
    });
  }
  // A resumed session's earlier runs may have named their outputs: those are theirs to keep.
  const earlierOutputs = new Set(await existingOutputs(join(sessionsDir, sessionId)));
  const session = createSession({
    sessionId,
    sessionDir: join(sessionsDir, sessionId),
    // --resume / --continue bring it back: its worktree stays for them.
    resumable: true,
    hooks,
    cwd,
    tools,
    rules: settings.rules,
    permissionMode: settings.mode,
    additionalDirectories: settings.additionalDirectories,
    env: settings.env,
    maxConcurrency,
    model: config.model,
    // Anthropic models read a PDF whole (a document block); the others get its text.
    pdfDocuments: config.provider === "anthropic",
    // -p: a call that needs approval is denied (no approver); interactive: asked on the terminal;
    // the SDK's stream-json: asked of the host (can_use_tool).
    canUseTool: approver,
    // A refused call reads as it does in the reference CLI (a hook's deny, an unapproved write).
    refusalText: referenceRefusalText(cwd),
    toolSource,
    ...(resumeId !== undefined && stateDir.snapshot ? { restore: stateDir.snapshot } : {}),
  });
  ref.session = session;
  const visible = session.context.options.tools.filter((t) => !isDeniedOutright(t, session.context.permissionContext)).map((t) => t.name);
  const given = values["system-prompt"] ?? initPrompt;
  const notes = settingSources === undefined || settingSources.includes("project");
  let system = given ?? (await buildSystemPrompt({ cwd, toolNames: visible, projectTrusted: settings.loaded.trust.trusted, skills, projectNotes: notes, ...(git ? { git } : {}) }));
  // A host's own prompt still gets the project's CLAUDE.md / AGENTS.md when the project source is read (the reference's rule).
  if (given !== undefined && notes) {
    const notes = await projectNotesSection(cwd, settings.loaded.trust.trusted);
    if (notes !== undefined) system = system === "" ? notes : `${system}\n\n${notes}`;
  }
  for (const extra of [values["append-system-prompt"], typeof initRequest.appendSystemPrompt === "string" ? initRequest.appendSystemPrompt : undefined]) {
    if (extra !== undefined && extra !== "") system = `${system}\n\n${extra}`;
  }

  let usageSaved: Promise<unknown> = Promise.resolve();
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
    // As the reference: the run ends once the answer was handed in.
    ...(structured ? { endAfterTools: [STRUCTURED_OUTPUT_TOOL] } : {}),
  };
  const apiKeySource = apiKeySourceOf(config);
  const info = {
    cwd,
    sessionId,
    model: config.model,
    tools: visible,
    permissionMode: settings.mode,
    apiKeySource,
    provider: config.provider,
    mcpServers: () => (toolSource?.servers() ?? []).map((s) => ({ name: s.name, status: s.status })),
    agents: ["general-purpose", "Explore", ...agents.map((a) => a.name)],
    // The skills the model can load (the reference lists their names here).
    skills: visible.includes("Skill") ? skills.map((s) => s.name) : [],
    ignoredFlags: ignoredFlagsGiven(values as Record<string, unknown>),
    includePartialMessages: values["include-partial-messages"] === true,
    tasks: () => taskRegistry(session.context),
    retries,
    // modelUsage and total_cost_usd over the whole session: a resumed one goes on from its totals.
    sessionUsage: resumeId !== undefined && !forked ? await readSessionUsage(join(sessionsDir, sessionId)) : {},
    onSessionUsage: (totals: Record<string, Usage>) => {
      usageSaved = usageSaved
        .then(() => writeSessionUsage(join(sessionsDir, sessionId), totals))
        .catch((err: unknown) => io.stderr.write(`armature: could not save the session's token totals: ${(err as Error).message}\n`));
    },
  };
  // SIGTERM / SIGINT / SIGHUP: every process the session started is stopped and the state saved,
  // then exit 128 + the signal's number (as exec does).
  let finished = false;
  const finish = async (): Promise<void> => {
    if (finished) return;
    finished = true;
    await session.close();
    await usageSaved;
    // Full Bash outputs no result named cannot be found again: removed (an earlier run's stay).
    await namedInConversations(run.conversationPath, session.context.session.dir, earlierOutputs);
    await removeUnnamedOutputs(session.context.session.dir, earlierOutputs);
    try {
      await stateDir.save(session.snapshot());
    } catch (err) {
      io.stderr.write(`armature: could not save the session state in ${stateDir.dir}: ${(err as Error).message}\n`);
    } finally {
      stateDir.release();
    }
  };
  let stopping = false;
  const removeSignalHandlers = io.handleSignals
    ? exitOnSignals(async () => {
        stopping = true;
        // The running turn stops first: no model request goes out while the session closes.
        ref.abortRun?.("the process was told to stop");
        await finish();
      })
    : undefined;
  try {
    if (interactive) return await interactiveLoop(run, io, info);
    if (channel) {
      const output = new AgentOutput(io, format, info);
      const code = await runStreamSession({
        run,
        channel,
        output,
        mcp: toolSource,
        structured,
        maxBudgetUsd: mode.maxBudgetUsd,
        defaultModel: config.model,
        warn: (text) => io.stderr.write(`armature: ${text}\n`),
        onRunStart: (abort) => {
          ref.abortRun = abort;
        },
        hostMcpEntries: (servers) => hostMcpEntries(servers, cwd, "the SDK host (mcp_set_servers)"),
        resolveModel: (model) => resolveModelAlias(model, config.provider, aliasEnv),
        expandPrompt: (text) => expandSkillCommand(text, skills),
      });
      await pump;
      return code;
    }
    return await runAgentOnce({ ...run, prompt: prompt! }, io, format, info, {
      structured,
      maxBudgetUsd: mode.maxBudgetUsd,
      onAbortable: (abort) => {
        ref.abortRun = abort;
      },
    });
  } finally {
    if (!stopping) {
      await finish();
      removeSignalHandlers?.();
    }
  }
}

interface InitializeDeliveries {
  /** The host's `settings` object, written to a file for the loader (as inline `--settings` JSON is). */
  settings?: { write(): Promise<string>; remove(): Promise<void> };
  /** The reply's `*_applied` fields for what the request carried. */
  applied: Record<string, boolean>;
}

/**
 * `initialize.settings`, `.disallowedTools` and `.additionalDirectories`: the same as the flags
 * they replace (the host's own settings, deny rules, working directories). A value of the wrong
 * shape is not applied, and the reply says so (the SDK then ends the session with its message).
 */
function applyInitializeDeliveries(init: Record<string, unknown>, input: ReturnType<typeof settingsInputFrom>): InitializeDeliveries {
  const applied: Record<string, boolean> = {};
  const out: InitializeDeliveries = { applied };
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
  if (init.disallowedTools !== undefined) {
    applied.disallowed_tools_applied = strings(init.disallowedTools);
    if (strings(init.disallowedTools)) input.cli.deny = [...(input.cli.deny ?? []), ...splitToolRules(init.disallowedTools)];
  }
  if (init.additionalDirectories !== undefined) {
    const dirs = strings(init.additionalDirectories) ? init.additionalDirectories.map((d) => resolve(input.cwd, d)) : undefined;
    if (dirs) for (const dir of dirs) if (!isDirectory(dir)) throw new UsageError(`initialize.additionalDirectories: ${dir} is not a directory`);
    applied.additional_directories_applied = dirs !== undefined;
    if (dirs) input.cli.addDirs = [...(input.cli.addDirs ?? []), ...dirs];
  }
  if (init.settings !== undefined) {
    const value = init.settings;
    const ok = typeof value === "object" && value !== null && !Array.isArray(value) && input.settingsFile === undefined;
    applied.settings_applied = ok;
    if (ok) {
      let dir: string | undefined;
      out.settings = {
        async write() {
          dir = await mkdtemp(join(tmpdir(), "armature-settings-"));
          const file = join(dir, "settings.json");
          await writeFile(file, JSON.stringify(value), { mode: 0o600 });
          return file;
        },
        async remove() {
          if (dir !== undefined) await rm(dir, { recursive: true, force: true });
        },
      };
    }
  }
  return out;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `--setting-sources user,project,local` ("" reads none); undefined when the flag is absent. */
function parseSettingSources(value: string | undefined): SettingSource[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const name of names) {
    if (!(SETTING_SOURCES as readonly string[]).includes(name)) throw new UsageError(`--setting-sources: ${JSON.stringify(name)} is not one of ${SETTING_SOURCES.join(", ")}`);
  }
  return names as SettingSource[];
}

/** `initialize.workspaceTrust`: `{accepted: true, directory}` naming this run's folder. */
function hostTrusts(value: unknown, cwd: string): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { accepted, directory } = value as { accepted?: unknown; directory?: unknown };
  return accepted === true && typeof directory === "string" && isAbsolute(directory) && resolve(directory) === resolve(cwd);
}

function apiKeySourceOf(config: ProviderConfig): string {
  return config.apiKey !== undefined ? `${config.provider === "anthropic" ? "ANTHROPIC" : "OPENAI"}_API_KEY` : "none";
}

interface InitializeReplyInput {
  agents: readonly AgentDefinition[];
  hooks: boolean;
  /** The request carried `mcpServers` (they were taken, as an --mcp-config item would be). */
  mcpServers: boolean;
  models: Array<Record<string, unknown>>;
  account: Record<string, unknown>;
  skills: readonly Skill[];
}

/** The reply to the host's `initialize` (the SDK's SDKControlInitializeResponse). */
function initializeResponse(input: InitializeReplyInput): Record<string, unknown> {
  return {
    commands: skillCommands(input.skills),
    agents: [
      { name: "general-purpose", description: "A sub-agent with every tool, for multi-step tasks." },
      { name: "Explore", description: "A read-only sub-agent for searching the codebase." },
      ...input.agents.map((a) => ({ name: a.name, description: a.description, ...(a.model !== undefined ? { model: a.model } : {}) })),
    ],
    output_style: "default",
    available_output_styles: ["default"],
    models: input.models,
    account: input.account,
    ...(input.hooks ? { hooks_applied: true } : {}),
    hook_on_failure_supported: true,
    ...(input.mcpServers ? { mcp_servers_applied: true } : {}),
    claude_code_version: CLAUDE_CODE_PROTOCOL_VERSION,
  };
}

async function* splitLines(text: Promise<string>): AsyncGenerator<string> {
  for (const line of (await text).split("\n")) yield line;
}
