import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";

/**
 * With a `Read(./.env)` deny rule, readers that never print .env are not asked about (issue 8
 * false positives): git shows tracked files and history only, rg/tree/ls -R skip hidden files.
 * Checked against real repositories: where .env is tracked, or was once, git readers ask.
 */
let root: string;
const saved = { HOME: process.env.HOME, managed: process.env.ARMATURE_MANAGED_SETTINGS };

function repo(dir: string, trackEnv: boolean, unhide = false): void {
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "src/a.ts"), "// TODO\n");
  writeFileSync(join(dir, ".env"), "SECRET=1\n");
  writeFileSync(join(dir, ".gitignore"), trackEnv ? "" : ".env\n");
  if (unhide) writeFileSync(join(dir, ".ignore"), "!.env\n");
  const git = (...args: string[]): void => {
    execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=a", ...args], { cwd: dir, stdio: "ignore", env: { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" } });
  };
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "one");
  if (trackEnv) {
    // Tracked once, then removed: still in the history.
    git("rm", "-q", "--cached", ".env");
    writeFileSync(join(dir, ".gitignore"), ".env\n");
    git("add", ".gitignore");
    git("commit", "-qm", "two");
  }
}

async function decide(cwd: string, commands: string[]): Promise<string[]> {
  const file = join(root, `batch-${Math.random()}.jsonl`);
  writeFileSync(file, commands.map((command) => JSON.stringify({ tool: "Bash", input: { command }, deny: ["Read(./.env)"] })).join("\n"));
  let out = "";
  const io: CliIO = { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true }, readStdin: async () => "", isTTY: false };
  await main(["permissions", "check", "--batch", file, "--cwd", cwd], io);
  return out.split("\n").filter((l) => l !== "").map((l) => (JSON.parse(l) as { behavior: string }).behavior);
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "armature-narrow-")));
  process.env.HOME = join(root, "home");
  process.env.ARMATURE_MANAGED_SETTINGS = join(root, "none.json");
  repo(join(root, "clean"), false);
  repo(join(root, "tracked"), true);
  repo(join(root, "unhide"), false, true);
});

afterAll(async () => {
  if (saved.HOME === undefined) delete process.env.HOME;
  else process.env.HOME = saved.HOME;
  if (saved.managed === undefined) delete process.env.ARMATURE_MANAGED_SETTINGS;
  else process.env.ARMATURE_MANAGED_SETTINGS = saved.managed;
  await rm(root, { recursive: true, force: true });
});

const GIT = ["git diff", "git diff --cached", "git show", "git show HEAD", "git log -p", "git log -p -3", "git grep TODO"];
const HIDDEN_SKIPPING = ["rg -n TODO", "rg TODO src", "rg --files", "tree", "ls -R"];

describe("recursive readers that skip the denied path", () => {
  it("allows git readers and hidden-skipping readers when .env was never tracked", async () => {
    expect(await decide(join(root, "clean"), [...GIT, ...HIDDEN_SKIPPING])).toEqual([...GIT, ...HIDDEN_SKIPPING].map(() => "allow"));
  });

  it("asks for git readers when .env is in the history", async () => {
    expect(await decide(join(root, "tracked"), GIT)).toEqual(GIT.map(() => "ask"));
  });

  it("asks for rg when an ignore file may whitelist hidden files", async () => {
    expect(await decide(join(root, "unhide"), ["rg -n TODO", "rg --files"])).toEqual(["ask", "ask"]);
  });

  it("asks for readers that read hidden files or objects git may hold outside its history", async () => {
    const cmds = ["find . -exec cat {} +", "rg --hidden TODO", "rg -uu TODO", "git show 1a2b3c4", "git grep --untracked TODO", "git grep --no-index TODO", "grep -rn TODO .", "cat .env"];
    const got = await decide(join(root, "clean"), cmds);
    expect(got.every((b) => b !== "allow"), JSON.stringify(got)).toBe(true);
  });

  // Issue 19: listers print names and metadata. .env is a plain file: listing its name is not
  // reading it. Where the denied path is a directory, listing below it is.
  const LISTERS = ["find . -print", "find . -name '*.ts'", "du -sh .", "du -a", "tree -a", "ls -Ra"];
  it("allows listers where the denied path is a file, tracked or not", async () => {
    expect(await decide(join(root, "clean"), LISTERS)).toEqual(LISTERS.map(() => "allow"));
    expect(await decide(join(root, "tracked"), LISTERS)).toEqual(LISTERS.map(() => "allow"));
  });

  it("asks for listers where the denied path is a directory", async () => {
    const dir = join(root, "env-dir");
    mkdirSync(join(dir, ".env"), { recursive: true });
    writeFileSync(join(dir, ".env", "key"), "k\n");
    expect(await decide(dir, LISTERS)).toEqual(LISTERS.map(() => "ask"));
  });
});
