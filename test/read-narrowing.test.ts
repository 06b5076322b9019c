import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
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
  const git = (...args: string[]): void => gitIn(dir, ...args);
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

function gitIn(dir: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=a", ...args], { cwd: dir, stdio: "ignore", env: { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" } });
}

async function decide(cwd: string, commands: string[], deny = "Read(./.env)"): Promise<string[]> {
  const file = join(root, `batch-${Math.random()}.jsonl`);
  writeFileSync(file, commands.map((command) => JSON.stringify({ tool: "Bash", input: { command }, deny: [deny] })).join("\n"));
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
  repo(join(root, "secrets"), false);
  writeFileSync(join(root, "secrets/secrets.txt"), "TODO secret\n");
  writeFileSync(join(root, "secrets/.gitignore"), "secrets.txt\n");
  // .env committed, and .gitignore names it too (rg would skip it; git grep reads it).
  repo(join(root, "committed"), false);
  writeFileSync(join(root, "committed/.gitignore"), "");
  gitIn(join(root, "committed"), "add", "-A");
  gitIn(join(root, "committed"), "commit", "-qm", "env");
  writeFileSync(join(root, "committed/.gitignore"), ".env\n");
  repo(join(root, "symlink"), false);
  symlinkSync(".env", join(root, "symlink/envlink"));
  // A work tree whose .git is a file pointing at the repository elsewhere.
  repo(join(root, "gitfile"), false);
  renameSync(join(root, "gitfile/.git"), join(root, "gitfile-gitdir"));
  writeFileSync(join(root, "gitfile/.git"), `gitdir: ${join(root, "gitfile-gitdir")}\n`);
  repo(join(root, "submodule"), false);
  writeFileSync(join(root, "submodule/.gitmodules"), '[submodule "x"]\n\tpath = x\n\turl = ./x\n');
  mkdirSync(join(root, "norepo"));
  writeFileSync(join(root, "norepo/.env"), "SECRET=1\n");
  writeFileSync(join(root, "norepo/.gitignore"), ".env\n");
  writeFileSync(join(root, "norepo/a.ts"), "// TODO\n");
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

  it("asks for git readers when .env is in the history; git grep reads the index only", async () => {
    const history = GIT.filter((c) => !c.startsWith("git grep"));
    expect(await decide(join(root, "tracked"), history)).toEqual(history.map(() => "ask"));
    expect(await decide(join(root, "tracked"), ["git grep TODO", "git grep --untracked TODO", "git grep TODO HEAD~1", "git grep --no-index TODO"])).toEqual(["allow", "allow", "ask", "ask"]);
  });

  it("asks for rg when an ignore file may whitelist hidden files", async () => {
    expect(await decide(join(root, "unhide"), ["rg -n TODO", "rg --files"])).toEqual(["ask", "ask"]);
  });

  it("asks for readers that read hidden files or objects git may hold outside its history", async () => {
    const cmds = ["find . -exec cat {} +", "rg -uu TODO", "rg -u --hidden TODO", "git show 1a2b3c4", "git grep --no-index TODO", "grep -rn TODO .", "cat .env"];
    const got = await decide(join(root, "clean"), cmds);
    expect(got.every((b) => b !== "allow"), JSON.stringify(got)).toBe(true);
  });

  // Issue 19: ripgrep skips what the repository's ignore files ignore, as git lists it.
  it("allows rg --hidden and git grep --untracked where .gitignore ignores the denied file", async () => {
    const cmds = ["rg --hidden -n TODO", "rg -. TODO", "rg -u TODO", "rg --hidden TODO src", "rg -t ts TODO", "git grep --untracked TODO"];
    expect(await decide(join(root, "clean"), cmds)).toEqual(cmds.map(() => "allow")); // `-u`: no ignore files, still no hidden files
    expect(await decide(join(root, "secrets"), ["rg -n TODO", "rg TODO .", "git grep TODO", "rg --files"], "Read(./secrets.txt)")).toEqual(["allow", "allow", "allow", "allow"]);
  });

  it("the rg and git grep runs allowed above print nothing of the denied file (real rg and git)", () => {
    const run = (cwd: string, command: string): string => {
      try {
        return execFileSync("bash", ["-c", command], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, HOME: join(root, "home") } });
      } catch (e) {
        return String((e as { stdout?: string }).stdout ?? "");
      }
    };
    for (const c of ["rg --hidden -n TODO", "rg -. SECRET", "rg --hidden SECRET", "git grep --untracked SECRET", "rg --hidden --files"]) {
      expect(run(join(root, "clean"), c), c).not.toMatch(/SECRET|\.env/);
    }
    for (const c of ["rg -n TODO", "rg TODO .", "git grep TODO", "rg --files"]) expect(run(join(root, "secrets"), c), c).not.toContain("secrets.txt:");
    // The controls: the reads that ask do print it.
    expect(run(join(root, "clean"), "rg -uu SECRET")).toContain("SECRET");
    expect(run(join(root, "secrets"), "rg -g '*.txt' TODO")).toContain("secrets.txt:");
  });

  it("asks for rg where the ignore files may not hold, or options or operands override them", async () => {
    const secrets = ["rg --no-ignore TODO", "rg -uu TODO", "rg -u TODO", "rg --no-ignore-vcs TODO", "rg -g '!x' TODO", "rg --glob '*.txt' TODO", "rg --ignore-file /dev/null TODO", "rg TODO secrets.txt", "rg TODO ./secrets.txt src", "git grep --untracked --no-exclude-standard TODO"];
    const got = await decide(join(root, "secrets"), secrets, "Read(./secrets.txt)");
    expect(got.every((b) => b !== "allow"), JSON.stringify(got)).toBe(true);
    // committed: .env is tracked (and matches .gitignore); unhide: `.ignore` says `!.env`;
    // gitfile: `.git` is a file; submodule: a .gitmodules; norepo: .gitignore without a repository.
    for (const name of ["committed", "unhide", "gitfile", "submodule", "norepo"]) {
      const got2 = await decide(join(root, name), ["rg --hidden TODO", "git grep --untracked TODO"]);
      expect(got2[0], name).not.toBe("allow");
    }
    expect(await decide(join(root, "committed"), ["git grep TODO", "git grep --untracked TODO", "git log -p"])).toEqual(["ask", "ask", "ask"]);
  });

  it("asks for rg following a symlink to the denied file, and when RIPGREP_CONFIG_PATH is set", async () => {
    const got = await decide(join(root, "symlink"), ["rg -L --hidden TODO", "rg --follow TODO", "rg --hidden TODO"]);
    expect(got.slice(0, 2).every((b) => b !== "allow"), JSON.stringify(got)).toBe(true);
    expect(got[2]).toBe("allow"); // rg does not follow links it walks without -L
    process.env.RIPGREP_CONFIG_PATH = join(root, "rgrc");
    try {
      expect(await decide(join(root, "clean"), ["rg --hidden TODO", "rg TODO"])).toEqual(["ask", "ask"]);
    } finally {
      delete process.env.RIPGREP_CONFIG_PATH;
    }
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
