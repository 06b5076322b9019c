import { createInterface } from "node:readline/promises";
import { execCommand, EXEC_HELP } from "./exec.js";
import { readAll, UsageError, type CliIO } from "./io.js";
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

Run 'armature <command> --help' for a command's options.
`;

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    readStdin: () => readAll(process.stdin),
    isTTY: process.stdin.isTTY === true && process.stderr.isTTY === true,
    question: async (prompt) => {
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
      return 2;
    }
    throw err;
  }
}
