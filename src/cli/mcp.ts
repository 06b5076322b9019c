import { parseArgs } from "node:util";
import { isLoopbackName } from "../mcp/http-origin.js";
import type { McpManager } from "../mcp/manager.js";
import type { Approver } from "../permissions/types.js";
import { userConfigDir } from "../session/session-home.js";
import { createSession, type DynamicToolSource, type Session } from "../session/session.js";
import { builtinTools } from "../tools/index.js";
import { UsageError, type CliIO } from "./io.js";
import { didYouMean } from "./suggest.js";
import { connectCliMcp, MCP_CONFIG_HELP, MCP_CONFIG_OPTIONS, mcpServerEntries } from "./mcp-config.js";
import type { Skill } from "../skills/load-skills.js";
import { cliSkills, skillToolOptions } from "./skills.js";
import { loadExecSettings, SETTINGS_HELP, SETTINGS_OPTIONS, settingsHooks, settingsInputFrom, settingsWarnings, type ExecSettings } from "./settings.js";

export const MCP_LOGIN_HELP = `Usage: armature mcp login NAME [options]

Logs in to the remote MCP server NAME (from --mcp-config or the settings) with OAuth 2.1, as the
MCP authorization spec describes: it finds the server's authorization server, registers armature
as a client, prints the login page's address to open in a browser, and takes the answer on
127.0.0.1. The tokens are saved (mode 0600) in $ARMATURE_CONFIG_DIR/mcp-oauth/ (default
~/.armature); every later connection to that server uses them and refreshes them.

Options:
${SETTINGS_HELP}${MCP_CONFIG_HELP}  --timeout SECONDS      how long to wait for the browser (default 300)
  -h, --help             this text
`;

export const MCP_HELP = `Usage: armature mcp serve [options]
       armature mcp login NAME [options]   (see armature mcp login --help)

Serves armature's tools to an MCP client, over stdio (default) or Streamable HTTP. Every call
runs through the permission engine and hooks of the served directory (--cwd); a call that
needs approval is asked through the client (MCP elicitation) when it supports that, and is
denied with the reason otherwise. Skills (the user's, the project's once trusted) are served
through the Skill tool; their listing is the server's instructions.

Options:
${SETTINGS_HELP}${MCP_CONFIG_HELP}  --include-mcp-tools    also serve the tools of the MCP servers armature connects to
  --http [HOST:]PORT     serve Streamable HTTP at http://HOST:PORT/mcp (HOST default 127.0.0.1)
  --token TOKEN          the bearer token HTTP clients must send (default: env ARMATURE_MCP_TOKEN,
                         else a new one, printed on stderr)
  --no-token             HTTP on a loopback address only: serve without a token, for a client
                         that cannot send one (any local process can then use the tools)
  --allow-origin ORIGIN  an HTTP Origin allowed besides loopback ones (repeatable)
  --allow-host NAME      a Host name allowed besides the bound address (repeatable)
  --idle-timeout SECONDS HTTP: close an MCP session no request touched for this long
                         (default 900; 0: never)
  --max-sessions N       HTTP: at most N MCP sessions at once (default 256); one more closes the
                         session idle longest, or gets 503 while every session has a call running
  --max-message-mb N     stdio: the largest message read (default 64); a longer one, or a line
                         that is not a JSON-RPC message, gets a JSON-RPC error and serving goes on
  --verbose              log sessions opened, reaped and refused, and rejected messages, on stderr
  -h, --help             this text
`;

/** `[HOST:]PORT` → host and port; a bare port is on 127.0.0.1. */
export function parseHostPort(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
  const port = Number(m?.[3]);
  if (!m || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--http takes [HOST:]PORT (e.g. 8765 or 127.0.0.1:8765); got ${JSON.stringify(value)}`);
  }
  return { host: m[1] || m[2] || "127.0.0.1", port };
}

function sharedSource(manager: McpManager | undefined): DynamicToolSource | undefined {
  if (!manager) return undefined;
  // Every served session uses the one connection per server; it is closed when serving stops.
  return { tools: () => manager.tools(), onToolsChanged: (l) => manager.onToolsChanged(l), close: async () => {} };
}

function sessionFactory(settings: ExecSettings, cwd: string, manager: McpManager | undefined, io: CliIO, skills: readonly Skill[]): (approver: Approver) => Session {
  return (approver) => {
    const holder: { session?: Session } = {};
    const hooks = settingsHooks(settings, cwd, () => holder.session!.context, io);
    const session = createSession({
      cwd,
      tools: builtinTools(skillToolOptions(skills)),
      toolSource: sharedSource(manager),
      rules: settings.rules,
      permissionMode: settings.mode,
      additionalDirectories: settings.additionalDirectories,
      env: settings.env,
      hooks,
      canUseTool: approver,
      // An MCP client gets every schema: nothing is deferred.
      toolSearch: "false",
    });
    holder.session = session;
    return session;
  };
}

export async function mcpCommand(argv: string[], io: CliIO, stopWhen?: Promise<void>): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "-h" || sub === "--help" || sub === "help") {
    io.stdout.write(MCP_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub === "login") return loginCommand(rest, io);
  if (sub !== "serve") throw new UsageError(`unknown mcp command ${JSON.stringify(sub)} (the commands are: armature mcp serve, armature mcp login).${didYouMean(sub, ["serve", "login"])}`);
  // Only serve stops on a signal by itself: login keeps the default (a signal ends it).
  const stop = stopWhen ?? signalled();
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: false,
    strict: true,
    options: {
      ...SETTINGS_OPTIONS,
      ...MCP_CONFIG_OPTIONS,
      http: { type: "string" },
      token: { type: "string" },
      "no-token": { type: "boolean" },
      "allow-origin": { type: "string", multiple: true },
      "allow-host": { type: "string", multiple: true },
      "include-mcp-tools": { type: "boolean" },
      "idle-timeout": { type: "string" },
      "max-sessions": { type: "string" },
      "max-message-mb": { type: "string" },
      verbose: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(MCP_HELP);
    return 0;
  }
  void positionals;
  const http = values.http !== undefined ? parseHostPort(values.http) : undefined;
  const token = values.token ?? process.env.ARMATURE_MCP_TOKEN;
  const noToken = values["no-token"] === true;
  if (noToken) {
    if (!http) throw new UsageError("--no-token is for --http (stdio has no token)");
    if (values.token !== undefined) throw new UsageError("--no-token and --token contradict each other: give one");
    if (!isLoopbackName(http.host)) throw new UsageError(`--no-token serves only on a loopback address (127.0.0.1, ::1, localhost); --http binds ${http.host}`);
  }
  if (!noToken && token !== undefined && token.length < 16) throw new UsageError("--token must be at least 16 characters");
  const idleSeconds = numberFlag("--idle-timeout", values["idle-timeout"], 0);
  const maxSessions = numberFlag("--max-sessions", values["max-sessions"], 1);
  const maxMessageMb = numberFlag("--max-message-mb", values["max-message-mb"], 1);
  const verbose = values.verbose === true ? (message: string) => io.stderr.write(`armature: ${message}\n`) : undefined;
  const settingsInput = settingsInputFrom(values);
  const cwd = settingsInput.cwd;
  const settings = await loadExecSettings(settingsInput);
  for (const warning of settingsWarnings(settings, builtinTools())) io.stderr.write(`armature: ${warning}\n`);
  if (settings.mode === "plan") {
    io.stderr.write("armature: serving in plan mode: a client without elicitation is not offered ExitPlanMode, so for it the tools stay read-only\n");
  }
  // The skills as `exec` and `agent` have them: the user's, the project's once trusted.
  const skills = await cliSkills(settings, settingsInput);
  const makeSession = sessionFactory(settings, cwd, undefined, io, skills);
  // Hook configuration errors show before anything is served.
  await makeSession(async () => ({ behavior: "deny" })).close();
  const manager = await connectCliMcp(values, settings, cwd, io);
  const options = { includeMcpTools: values["include-mcp-tools"] === true, skills };
  const { serveHttp, serveStdio } = await import("../mcp/serve-transports.js");
  try {
    const factory = sessionFactory(settings, cwd, manager, io, skills);
    if (!http) {
      const stopping = new AbortController();
      void stop.then(() => stopping.abort());
      await serveStdio(factory, {
        ...options,
        signal: stopping.signal,
        ...(maxMessageMb !== undefined ? { maxMessageBytes: Math.floor(maxMessageMb * 1024 * 1024) } : {}),
        ...(verbose ? { onRejected: (m: string) => verbose(`rejected a message: ${m}`) } : {}),
      });
      return 0;
    }
    const handle = await serveHttp(factory, {
      ...options,
      ...http,
      ...(noToken ? { noToken } : { token }),
      allowedOrigins: values["allow-origin"] ?? [],
      allowedHosts: values["allow-host"] ?? [],
      ...(idleSeconds !== undefined ? { idleTimeoutMs: idleSeconds * 1000 } : {}),
      ...(maxSessions !== undefined ? { maxSessions: Math.floor(maxSessions) } : {}),
      ...(verbose ? { onEvent: verbose } : {}),
    });
    io.stderr.write(`armature: serving MCP at ${handle.url}\n`);
    if (handle.generatedToken) io.stderr.write(`armature: bearer token: ${handle.token}\n`);
    if (noToken) io.stderr.write("armature: serving without a token (--no-token): any process on this machine can use these tools\n");
    await stop;
    await handle.close();
    return 0;
  } finally {
    await manager?.close();
  }
}

async function loginCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { ...SETTINGS_OPTIONS, ...MCP_CONFIG_OPTIONS, timeout: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    io.stdout.write(MCP_LOGIN_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`mcp login takes the name of one server; got ${positionals.length === 0 ? "none" : positionals.join(" ")}`);
  const name = positionals[0]!;
  const timeout = numberFlag("--timeout", values.timeout, 1) ?? 300;
  const settingsInput = settingsInputFrom(values);
  const settings = await loadExecSettings(settingsInput);
  const { entries } = await mcpServerEntries(values, settings, settingsInput.cwd, settings.loaded.trust.trusted);
  const entry = entries.find((e) => e.name === name) ?? entries.find((e) => e.normalizedName === name);
  if (!entry) throw new UsageError(`no MCP server named ${JSON.stringify(name)} is configured${entries.length > 0 ? ` (there are: ${entries.map((e) => e.name).join(", ")})` : " (give it with --mcp-config)"}`);
  const config = entry.config;
  if (config.type !== "http" && config.type !== "sse") throw new UsageError(`MCP server ${name} is a ${config.type} server: OAuth login is for remote (http, sse) servers`);
  const { loginMcpServer } = await import("../mcp/oauth.js");
  try {
    const file = await loginMcpServer(entry.name, config.url, {
      configDir: userConfigDir(),
      timeoutMs: timeout * 1000,
      onAuthorizationUrl: (url) => void io.stderr.write(`armature: to log in to ${entry.name}, open this address in a browser:\n${url.href}\n`),
    });
    io.stderr.write(`armature: logged in to ${entry.name}; the tokens are in ${file}\n`);
    return 0;
  } catch (err) {
    io.stderr.write(`armature: logging in to ${entry.name} failed: ${(err as Error).message}\n`);
    return 1;
  }
}

/** A numeric flag's value (at least `min`), or undefined when not given. */
function numberFlag(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < min) throw new UsageError(`${flag} takes a number ≥ ${min}; got ${JSON.stringify(value)}`);
  return n;
}

/** Resolves on SIGINT, SIGTERM or SIGHUP (a closed terminal, or a supervisor's reload: the same clean stop). */
function signalled(): Promise<void> {
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  return new Promise((resolve) => {
    const done = (): void => {
      for (const signal of signals) process.off(signal, done);
      resolve();
    };
    for (const signal of signals) process.once(signal, done);
  });
}
