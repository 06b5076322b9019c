import { createInterface } from "node:readline/promises";
import { readFileSync } from "node:fs";
import { LineReader, readAll, UsageError, type CliIO } from "./io.js";
import { didYouMean, flagsInHelp } from "./suggest.js";

interface Command {
  run(argv: string[], io: CliIO): Promise<number>;
  /** Shown after an argument the parser rejects. */
  help: string;
}

/** Each command's module is loaded when it runs: `--version` or `gc` do not pay for the tools. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  exec: async () => import("./exec.js").then((m) => ({ run: m.execCommand, help: m.EXEC_HELP })),
  permissions: async () => import("./permissions.js").then((m) => ({ run: m.permissionsCommand, help: m.PERMISSIONS_HELP })),
  trust: async () => import("./trust.js").then((m) => ({ run: m.trustCommand, help: m.TRUST_HELP })),
  agent: async () => import("./agent.js").then((m) => ({ run: m.agentCommand, help: m.AGENT_HELP })),
  mcp: async () => import("./mcp.js").then((m) => ({ run: m.mcpCommand, help: m.MCP_HELP })),
  gc: async () => import("./gc.js").then((m) => ({ run: m.gcCommand, help: m.GC_HELP })),
};

const HELP = `Usage: armature <command> [options]

Commands:
  agent         run an agent loop against a model (Anthropic, OpenAI, or an OpenAI-compatible server)
  exec          run assistant turns of tool calls, print tool_result blocks
  permissions   check the decision for a call (check), show the effective rules (list)
  mcp serve     serve the tools to an MCP client (stdio, or Streamable HTTP with --http)
  trust         trust a project's own settings (hooks, allow rules, env…), list or revoke trust
  gc            remove session folders exec kept in the temp dir (--worktrees: idle session worktrees)

Options:
  --version     print the version
  -h, --help    this text

Run 'armature help <command>' (or 'armature <command> --help') for a command's options. Flags with no command (armature -p …,
as the Claude Agent SDK starts its engine) mean 'armature agent'; so does the armature-agent bin.
`;

export function processIO(): CliIO {
  // Set once exec streams stdin: approval questions then read their answers from the same reader.
  let lines: LineReader | undefined;
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    readStdin: () => readAll(process.stdin),
    stdinLines: () => (lines ??= new LineReader(process.stdin)).lines(),
    stdinIsTTY: process.stdin.isTTY === true,
    isTTY: process.stdin.isTTY === true && process.stderr.isTTY === true,
    handleSignals: true,
    question: async (prompt, signal) => {
      if (lines) return lines.question(prompt, process.stderr, signal);
      if (signal?.aborted) return "";
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(prompt, signal ? { signal } : {});
      } catch (err) {
        if (signal?.aborted) return "";
        throw err;
      } finally {
        rl.close();
      }
    },
  };
}

/** Runs the CLI; resolves to the exit code. Bad arguments give 2 and a message naming the flag. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  // Flags alone mean `agent`: the Agent SDK (pathToClaudeCodeExecutable) starts its engine with
  // the reference CLI's flags and no subcommand.
  if (isFlagsOnly(argv)) argv = ["agent", ...argv];
  const [command, ...rest] = argv;
  if (command === "agent") prefetchProviderSdk(rest);
  const load = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  const cmd = load ? await load() : undefined;
  try {
    if (cmd) return await cmd.run(rest, io);
    switch (command) {
      case "--version":
      case "-v":
      case "version":
        io.stdout.write(`${version()}\n`);
        return 0;
      case "help":
        if (rest.length > 0) return await helpCommand(rest, io);
        io.stdout.write(HELP);
        return 0;
      case undefined:
      case "-h":
      case "--help":
        io.stdout.write(HELP);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}.${didYouMean(command, [...Object.keys(COMMANDS), "help", "version"])}\n\n${HELP}`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr.write(`armature: ${(err as Error).message}\n`);
      if (cmd && !(err instanceof UsageError)) io.stderr.write(parseErrorHint(err as Error & { code: string }, command!, cmd.help));
      return 2;
    }
    throw err;
  }
}

/** `armature help <command>`: that command's help on stdout. */
async function helpCommand([name]: string[], io: CliIO): Promise<number> {
  const load = Object.hasOwn(COMMANDS, name!) ? COMMANDS[name!] : undefined;
  if (!load) throw new UsageError(`no help for ${JSON.stringify(name)}: not a command.${didYouMean(name!, Object.keys(COMMANDS))} The commands: ${Object.keys(COMMANDS).join(", ")}`);
  io.stdout.write((await load()).help);
  return 0;
}

/**
 * What follows a flag the command's parser rejects: for an unknown flag, the nearest flags its
 * help names (and the top-level ones) and where to read the rest, instead of the whole help;
 * for any other parse error, the command's help.
 */
function parseErrorHint(err: Error & { code: string }, command: string, help: string): string {
  const unknown = err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /'(-[^']*)'/.exec(err.message)?.[1] : undefined;
  if (unknown === undefined) return help;
  const flag = unknown.split("=")[0]!;
  const suggestion = didYouMean(flag, [...flagsInHelp(help), "--help", "--version"]).trim();
  return `${suggestion ? `${suggestion}\n` : ""}Run 'armature help ${command}' for its options.\n`;
}

/**
 * Starts loading the model SDK of `agent`'s provider (`--provider`, else ARMATURE_PROVIDER, else
 * anthropic) before the command's own modules, so that it is read while the agent's modules,
 * settings, MCP servers and the system prompt are being prepared, not after them at the first
 * request; the provider's own lazy import then finds it in the module cache. A failure here is
 * ignored: the provider reports it at its first request.
 */
function prefetchProviderSdk(argv: readonly string[]): void {
  let provider = process.env.ARMATURE_PROVIDER;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (arg === "--provider") provider = argv[i + 1];
    else if (arg.startsWith("--provider=")) provider = arg.slice("--provider=".length);
  }
  const load = provider === undefined || provider === "anthropic" ? import("@anthropic-ai/sdk") : provider.startsWith("openai") ? import("openai") : undefined;
  void load?.catch(() => undefined);
}

/** A first argument that is a flag other than the top-level ones (help, version). */
export function isFlagsOnly(argv: readonly string[]): boolean {
  const first = argv[0];
  return first !== undefined && first.startsWith("-") && !["-h", "--help", "-v", "--version"].includes(first);
}

/** The package's version, from its package.json (two folders up from dist/cli or src/cli). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { name: string; version: string };
  return `armature ${pkg.version} (npm package ${pkg.name})`;
}
