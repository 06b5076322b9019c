import { createInterface } from "node:readline/promises";
import { readFileSync } from "node:fs";
import { execCommand, EXEC_HELP } from "./exec.js";
import { gcCommand, GC_HELP } from "./gc.js";
import { LineReader, readAll, UsageError, type CliIO } from "./io.js";
import { permissionsCommand, PERMISSIONS_HELP } from "./permissions.js";
import { mcpCommand, MCP_HELP } from "./mcp.js";
import { trustCommand, TRUST_HELP } from "./trust.js";

const HELP = `Usage: armature <command> [options]

Commands:
  agent         run an agent loop against a model (Anthropic, OpenAI, or an OpenAI-compatible server)
  exec          run assistant turns of tool calls, print tool_result blocks
  permissions   check the decision for a call (check), show the effective rules (list)
  mcp serve     serve the tools to an MCP client (stdio, or Streamable HTTP with --http)
  trust         trust a project's own settings (hooks, allow rules, env…), list or revoke trust
  gc            remove session folders exec kept in the temp dir

Options:
  --version     print the version
  -h, --help    this text

Run 'armature <command> --help' for a command's options.
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
    question: async (prompt) => {
      if (lines) return lines.question(prompt, process.stderr);
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(prompt);
      } finally {
        rl.close();
      }
    },
  };
}

/** Runs the CLI; resolves to the exit code. Bad arguments give 2 and a message naming the flag. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "exec":
        return await execCommand(rest, io);
      case "permissions":
        return await permissionsCommand(rest, io);
      case "trust":
        return await trustCommand(rest, io);
      case "agent":
        // Loaded only for this command: `exec` and `permissions` do not pay for the agent's modules.
        return await (await import("./agent.js")).agentCommand(rest, io);
      case "mcp":
        return await mcpCommand(rest, io);
      case "gc":
        return await gcCommand(rest, io);
      case "--version":
      case "-v":
      case "version":
        io.stdout.write(`${version()}\n`);
        return 0;
      case undefined:
      case "help":
      case "-h":
      case "--help":
        io.stdout.write(HELP);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${HELP}`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr.write(`armature: ${(err as Error).message}\n`);
      if (command === "exec" && !(err instanceof UsageError)) io.stderr.write(EXEC_HELP);
      if (command === "permissions" && !(err instanceof UsageError)) io.stderr.write(PERMISSIONS_HELP);
      if (command === "trust" && !(err instanceof UsageError)) io.stderr.write(TRUST_HELP);
      if (command === "agent" && !(err instanceof UsageError)) io.stderr.write((await import("./agent.js")).AGENT_HELP);
      if (command === "mcp" && !(err instanceof UsageError)) io.stderr.write(MCP_HELP);
      if (command === "gc" && !(err instanceof UsageError)) io.stderr.write(GC_HELP);
      return 2;
    }
    throw err;
  }
}

/** The package's version, from its package.json (two folders up from dist/cli or src/cli). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { name: string; version: string };
  return `armature ${pkg.version} (npm package ${pkg.name})`;
}
