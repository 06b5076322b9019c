// Issue 19: the file-name producers a Bash call's decision judges (`wc -l $(git ls-files)`) run
// once per call, asynchronously (the event loop keeps turning while they run), and git's
// listing is judged only when the command's environment lets git list the same repository.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { namedTool, request } from "./permission-helpers.js";
import type { ToolResultBlock } from "../src/tool/types.js";

// armature starts its own git only from the system's root-owned folders (a PATH entry the project
// controls is never taken; trusted-executable's tests show it). The test's git, which waits for a
// gate, stands in for the system's: the lookup of "git" answers with it, every other name as usual.
vi.mock("../src/sandbox/trusted-executable.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/sandbox/trusted-executable.js")>();
  return {
    ...actual,
    trustedExecutable: (name: string, env?: Readonly<Record<string, string | undefined>>) =>
      name === "git" && process.env.ARMATURE_TEST_GIT ? process.env.ARMATURE_TEST_GIT : actual.trustedExecutable(name, env),
  };
});
// The setup files loaded the engine before this file's mock: load it again, with the mock.
vi.resetModules();
const { builtinTools, createSession } = await import("../src/index.js");
const { resolvePermission } = await import("../src/permissions/resolve.js");
const { analyzeCommand, ensureBashGrammar } = await import("../src/shell/index.js");
await ensureBashGrammar();


let root: string;
let proj: string;
let bin: string;
const saved = { PATH: process.env.PATH, sandbox: process.env.ARMATURE_SANDBOX };
const savedGit = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("GIT_")));

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "armature-producers-")));
  proj = join(root, "proj");
  bin = join(root, "bin");
  mkdirSync(proj);
  mkdirSync(bin);
  writeFileSync(join(proj, "README.md"), "a\nb\n");
  writeFileSync(join(proj, ".env"), "SECRET=1\n");
  // A git outside the project, first on PATH. Run by armature as the producer (its hardened
  // `-c …` options first, then `ls-files`) it says it started, then waits for a gate file that
  // only the test's timer creates. armature's other git runs (a repository's config) get nothing.
  writeFileSync(
    join(bin, "git"),
    [
      "#!/bin/sh",
      'case "$*" in',
      '  "-c "*" ls-files"*) ;;',
      '  "-c "*) exit 1 ;;',
      '  *) cat "$PRODUCER_OUTPUT"; exit 0 ;;',
      "esac",
      'echo run >> "$PRODUCER_RUNS"',
      ': > "$PRODUCER_STARTED"',
      'while [ ! -e "$PRODUCER_GATE" ]; do sleep 0.01; done',
      'cat "$PRODUCER_OUTPUT"',
      "",
    ].join("\n"),
  );
  chmodSync(join(bin, "git"), 0o755);
  process.env.PATH = `${bin}:${saved.PATH ?? ""}`;
  process.env.ARMATURE_TEST_GIT = join(bin, "git");
  process.env.ARMATURE_SANDBOX = "0";
  for (const k of Object.keys(savedGit)) delete process.env[k];
});

afterAll(async () => {
  process.env.PATH = saved.PATH;
  delete process.env.ARMATURE_TEST_GIT;
  if (saved.sandbox === undefined) delete process.env.ARMATURE_SANDBOX;
  else process.env.ARMATURE_SANDBOX = saved.sandbox;
  Object.assign(process.env, savedGit);
  await rm(root, { recursive: true, force: true });
});

/** Files of one run of the fake git, and the environment that points it at them. */
function producerFiles(name: string, output: string) {
  const dir = join(root, name);
  mkdirSync(dir);
  const files = { runs: join(dir, "runs"), started: join(dir, "started"), gate: join(dir, "gate"), output: join(dir, "output") };
  writeFileSync(files.output, output);
  Object.assign(process.env, { PRODUCER_RUNS: files.runs, PRODUCER_STARTED: files.started, PRODUCER_GATE: files.gate, PRODUCER_OUTPUT: files.output });
  return files;
}

async function runBash(command: string, options: { deny?: string[]; env?: Record<string, string> } = {}): Promise<ToolResultBlock> {
  const session = createSession({ cwd: proj, tools: builtinTools(), sandbox: false, ...(options.deny ? { deny: options.deny } : {}), ...(options.env ? { env: options.env } : {}) });
  try {
    const [result] = await session.runTurn([{ type: "tool_use", id: "toolu_producer", name: "Bash", input: { command } }]);
    return result!;
  } finally {
    await session.close();
  }
}

const text = (r: ToolResultBlock): string => (typeof r.content === "string" ? r.content : r.content.map((b) => ("text" in b ? b.text : "")).join(""));
const engineRuns = (file: string): number => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l !== "").length : 0);

describe("file-name producers when a call is decided", () => {
  it("run without blocking the event loop, once for the call, and their names are what is judged", async () => {
    const files = producerFiles("async", "README.md\n");
    const events: string[] = [];
    // Only a turning event loop can see the producer running and open its gate; a producer run
    // synchronously would wait for the gate until its time is up, and the call would ask.
    const poll = setInterval(() => {
      if (!existsSync(files.started) || existsSync(files.gate)) return;
      events.push("the event loop saw the producer running");
      writeFileSync(files.gate, "");
    }, 5);
    try {
      const result = await runBash("wc -l $(git ls-files)");
      events.push("decided and ran");
      expect(result.is_error, text(result)).not.toBe(true);
      expect(text(result)).toContain("2 README.md");
    } finally {
      clearInterval(poll);
    }
    expect(events).toEqual(["the event loop saw the producer running", "decided and ran"]);
    expect(engineRuns(files.runs)).toBe(1);
  });

  it("a printed name that a deny rule covers denies the call", async () => {
    const files = producerFiles("denied", "README.md\n.env\n");
    writeFileSync(files.gate, "");
    const result = await runBash("git ls-files | xargs cat", { deny: ["Read(./.env)"] });
    expect(result.is_error).toBe(true);
    expect(text(result)).toContain("Read(./.env)");
    expect(text(result)).not.toContain("SECRET");
    expect(engineRuns(files.runs)).toBe(1);
  });

  it.each([["GIT_DIR"], ["GIT_WORK_TREE"], ["GIT_INDEX_FILE"], ["GIT_CONFIG_GLOBAL"], ["GIT_LITERAL_PATHSPECS"]])(
    "with %s in the command's environment, git's listing is not judged: the call is not run without approval",
    async (variable) => {
      const files = producerFiles(`env-${variable}`, "README.md\n");
      writeFileSync(files.gate, "");
      const result = await runBash("wc -l $(git ls-files)", { env: { [variable]: join(root, "elsewhere") } });
      expect(result.is_error).toBe(true);
      expect(text(result)).toContain(`${variable} is set where the command runs`);
      expect(engineRuns(files.runs)).toBe(0);
    },
  );

  it("find is judged whatever git's variables say", async () => {
    producerFiles("find", "");
    const result = await runBash("find . -name README.md | xargs wc -l", { env: { GIT_DIR: join(root, "elsewhere") } });
    expect(result.is_error, text(result)).not.toBe(true);
    expect(text(result)).toContain("README.md");
  });

  it("a decision asked without the names the producer printed (its check not run) does not allow", () => {
    const facts = analyzeCommand("wc -l $(git ls-files)");
    const bash = namedTool("Bash");
    const decide = (produced?: Record<string, string[]>) =>
      resolvePermission(request({ tool: bash, cwd: proj, subject: { kind: "shell", facts, ...(produced ? { produced } : {}) } }), { home: join(root, "home") });
    const without = decide();
    expect(without.behavior).toBe("ask");
    expect(without.reason).toContain("it was not run for this decision");
    expect(decide({ "$(git ls-files)": ["README.md"] }).behavior).toBe("allow");
  });
});
