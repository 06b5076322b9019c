// Commands the analysis judges read-only can still run code a project ships, through the
// configuration the program reads where it runs: git runs what the repository's own config names
// (core.fsmonitor on `git status`, textconv drivers on `git diff`), yarn runs the release and
// plugins `.yarnrc.yml` names, rustup's `cargo`/`rustc` run the toolchain directory
// `rust-toolchain.toml` names. A cloned (or unpacked) project controls these files, so such a
// call is no longer read-only: it asks like any command that runs a program. Decided on the
// file system now, as data: which program, which files, what in them runs code, and why.
import { readFileSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { engineCommand } from "../sandbox/engine-process.js";
import { homedir } from "node:os";
import { posix } from "node:path";

/** Project files that make a program run code, and how to tell from their text (true: always). */
const PROGRAM_FILES: ReadonlyArray<{ programs: readonly string[]; files: readonly string[]; runs: (text: string) => boolean; reason: string }> = [
  {
    programs: ["yarn", "yarnpkg"],
    files: [".yarnrc.yml", ".yarnrc"],
    runs: () => true,
    reason: "yarn runs the JavaScript it names (yarnPath and plugins, yarn-path)",
  },
  {
    programs: ["pnpm", "pnpx"],
    files: [".pnpmfile.cjs", ".pnpmfile.mjs"],
    runs: () => true,
    reason: "pnpm loads it as code (its readPackage and other hooks)",
  },
  {
    // rustup's proxies run the toolchain the nearest toolchain file selects; `path` names any
    // directory. Only a file that cannot hold a path (nor an escape that could spell one) is inert.
    programs: ["cargo", "rustc", "rustdoc", "rustfmt", "cargo-fmt", "cargo-clippy", "clippy-driver", "rust-analyzer", "rust-gdb", "rust-lldb", "rustup"],
    files: ["rust-toolchain.toml", "rust-toolchain"],
    runs: (text) => /path|\\u/i.test(text),
    reason: "rustup runs the programs of the toolchain directory it names (toolchain.path)",
  },
];

/**
 * Keys of a repository's own git config (section.[subsection.]variable, matched lower case) that
 * make git run a program, and values known to run nothing of the project's. `core.hooksPath`,
 * pagers and editors are left out: read-only commands run no hooks, no pager without a
 * terminal, no editor.
 */
const GIT_PROGRAM_KEYS: ReadonlyArray<{ key: RegExp; benign?: RegExp; what: string }> = [
  { key: /^core\.fsmonitor$/, benign: /^(true|false|yes|no|on|off|1|0|)$/i, what: "a program git runs on status, diff and more" },
  { key: /^core\.worktree$/, what: "the work tree git reads and diffs, wherever it is" },
  { key: /^(core\.sshcommand|core\.askpass|core\.gitproxy)$/, what: "a program git runs to reach a remote" },
  { key: /^credential\.(.+\.)?helper$/, benign: /^[a-z0-9-]*$/i, what: "a credential program git runs" },
  { key: /^diff\.external$|^diff\..+\.(command|textconv)$/, what: "a diff program git runs" },
  { key: /^filter\..+\.(clean|smudge|process)$/, benign: /^git-lfs (clean -- %f|smudge -- %f|filter-process)$/, what: "a filter program git runs on files" },
  { key: /^gpg\.(.+\.)?program$/, what: "a signature program git runs" },
  { key: /^(difftool|mergetool)\..+\.cmd$|^diff\.tool$|^merge\..+\.driver$|^trailer\..+\.(command|cmd)$/, what: "a program git runs" },
  { key: /^remote\..+\.(uploadpack|receivepack|vcs)$|^protocol\.(.+\.)?allow$/, what: "a program or transport git runs for a remote" },
];

interface GitConfigCheck {
  /** The config files git read, and their state then: the answer holds while none changes. */
  files: string[];
  stamp: string;
  reason: string | null;
}
const gitChecks = new Map<string, GitConfigCheck>();

function fileStamp(files: readonly string[]): string {
  return files
    .map((f) => {
      try {
        const s = statSync(f);
        return `${f}:${s.mtimeMs}:${s.size}:${s.ino}`;
      } catch {
        return `${f}:-`;
      }
    })
    .join("|");
}

/**
 * What the repository git finds from `dir` configures that runs a program, or null. git itself
 * reads its config (`git config --list --includes`: includes, worktree config and the rules of
 * repository discovery, bare repositories included); only the repository's own scopes count.
 */
function gitConfigReason(dir: string): string | null {
  const cached = gitChecks.get(dir);
  if (cached && cached.stamp === fileStamp(cached.files)) return cached.reason;
  // armature's own git: hardened, and read-only where the sandbox runs.
  const cmd = engineCommand("git", ["config", "--list", "--show-scope", "--show-origin", "--includes", "-z"], { cwd: dir, findBare: true });
  if (!cmd) return null;
  const r = spawnSync(cmd.file, cmd.args, { cwd: dir, encoding: "utf8", timeout: 5_000, env: cmd.env, stdio: ["ignore", "pipe", "pipe"] });
  // No git, or no repository here: git itself will not get further with the command either.
  if (r.error || r.status !== 0) return null;
  const fields = r.stdout.split("\0");
  const origins = new Set<string>();
  let reason: string | null = null;
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const scope = fields[i]!;
    if (scope !== "local" && scope !== "worktree") continue;
    const origin = fields[i + 1]!.replace(/^file:/, "");
    origins.add(posix.resolve(dir, origin));
    const entry = fields[i + 2]!;
    const nl = entry.indexOf("\n");
    const key = (nl < 0 ? entry : entry.slice(0, nl)).toLowerCase();
    const value = nl < 0 ? "" : entry.slice(nl + 1);
    const hit = GIT_PROGRAM_KEYS.find((k) => k.key.test(key) && !k.benign?.test(value.trim()));
    if (hit && reason === null) reason = `the repository's git config (${origin}) sets ${key} = ${JSON.stringify(value)}: ${hit.what}`;
  }
  const files = [...origins];
  gitChecks.set(dir, { files, stamp: fileStamp(files), reason });
  return reason;
}

/** The nearest of `files` at or above `dir`, skipping the user's own (in the home directory). */
function nearestProjectFile(dir: string, files: readonly string[]): string | undefined {
  const home = homedir();
  for (let d = dir; ; d = posix.dirname(d)) {
    if (d !== home) {
      for (const f of files) {
        const path = posix.join(d, f);
        try {
          if (statSync(path).isFile()) return path;
        } catch {
          // absent: look further up
        }
      }
    }
    if (d === "/" || d === ".") return undefined;
  }
}

/** Whether `program` is one whose project configuration is looked at (git, yarn, cargo…). */
export function readsProjectPrograms(program: string): boolean {
  return projectConfigFiles(program).length > 0;
}

/** The repository config git reads in its local and worktree scopes (includes are followed too). */
const GIT_CONFIG_FILES: readonly string[] = Object.freeze([".git/config", ".git/config.worktree"]);
/** Per program of the table (a bounded set; any other name gets the shared empty list). */
const configFiles = new Map<string, readonly string[]>(
  [...new Set(PROGRAM_FILES.flatMap((entry) => entry.programs))].map((program) => [
    program,
    Object.freeze(PROGRAM_FILES.filter((entry) => entry.programs.includes(program)).flatMap((entry) => entry.files)),
  ]),
);
const NONE: readonly string[] = Object.freeze([]);

/**
 * The project files `program` loads that can make it run code the project ships (the table
 * above, in the order they are looked for; for git its repository config); empty for a program
 * whose project configuration is not looked at. A CommandFacts field (src/shell/command-facts.ts).
 */
export function projectConfigFiles(program: string): readonly string[] {
  if (program === "git") return GIT_CONFIG_FILES;
  return configFiles.get(program) ?? NONE;
}

/**
 * Why running `program` in any of `dirs` runs code the project ships, or null. `program` is the
 * command's base name (`git`, `yarn`, `cargo`…); other programs are not looked at.
 */
export function projectProgramReason(program: string, dirs: readonly string[]): string | null {
  for (const dir of dirs) {
    if (program === "git") {
      const reason = gitConfigReason(dir);
      if (reason) return reason;
      continue;
    }
    for (const entry of PROGRAM_FILES) {
      if (!entry.programs.includes(program)) continue;
      const file = nearestProjectFile(dir, entry.files);
      if (file === undefined) continue;
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch {
        text = "path"; // unreadable now, perhaps not when the command runs
      }
      if (entry.runs(text)) return `${file} is project configuration: ${entry.reason}`;
    }
  }
  return null;
}
