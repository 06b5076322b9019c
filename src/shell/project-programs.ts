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

/**
 * What in a project file makes the program run code or reach a host the project chose, given
 * whether the command reaches the network; true: the file itself; null: nothing.
 */
type Runs = (text: string, network: boolean) => string | true | null;

/** Project files that make a program run code, and how to tell from their text. */
const PROGRAM_FILES: ReadonlyArray<{ programs: readonly string[]; files: readonly string[]; runs: Runs; reason: string; everyLevel?: boolean }> = [
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
    // pnpm 10 reads its settings from the workspace file too: another pnpmfile, config
    // dependencies (packages whose pnpmfiles it loads). An escape could spell either name.
    programs: ["pnpm", "pnpx"],
    files: ["pnpm-workspace.yaml"],
    runs: (text) => (/pnpmfile|configDependencies|\\/i.test(text) ? true : null),
    reason: "pnpm loads the pnpmfile or config dependencies it names",
  },
  {
    // npm, pnpm and yarn 1 read the project's .npmrc (npm the one at the project root, which a
    // workspace puts higher up: every level counts, the user's own in the home directory not).
    programs: ["npm", "pnpm", "pnpx", "yarn", "yarnpkg"],
    files: [".npmrc"],
    runs: npmrcReason,
    reason: "npm reads its configuration there",
    everyLevel: true,
  },
  {
    // rustup's proxies run the toolchain the nearest toolchain file selects; `path` names any
    // directory. Only a file that cannot hold a path (nor an escape that could spell one) is inert.
    programs: ["cargo", "rustc", "rustdoc", "rustfmt", "cargo-fmt", "cargo-clippy", "clippy-driver", "rust-analyzer", "rust-gdb", "rust-lldb", "rustup"],
    files: ["rust-toolchain.toml", "rust-toolchain"],
    runs: (text) => (/path|\\u/i.test(text) ? true : null),
    reason: "rustup runs the programs of the toolchain directory it names (toolchain.path)",
  },
];

/**
 * `.npmrc` keys (lower case, `_` read as `-`) that name a program npm, pnpm or yarn may run,
 * or a file or directory they read config from or write to: whichever subcommand uses them in
 * whichever version (npm 6 required `onload-script` on every command; npm 8 and later write a
 * debug log under `logs-dir` or the cache on every command), a project that sets one is not
 * left to run unreviewed.
 */
const NPMRC_PROGRAM_KEYS: ReadonlyMap<string, string> = new Map([
  ["script-shell", "the shell npm runs scripts with"],
  ["shell", "the shell npm exec and explore run"],
  ["git", "the git program npm runs for git dependencies"],
  ["browser", "the browser program npm opens"],
  ["editor", "the editor program npm runs"],
  ["viewer", "the program npm shows help with"],
  ["node-options", "options (--require, --import) for every node npm starts"],
  ["onload-script", "a module npm requires on load"],
  ["node-gyp", "the node-gyp program npm runs"],
  ["npm-path", "the npm program pnpm runs"],
  ["pnpmfile", "the pnpmfile pnpm loads as code"],
  ["global-pnpmfile", "the pnpmfile pnpm loads as code"],
  ["init-module", "a module npm init runs"],
  ["userconfig", "another config file, read as the user's"],
  ["globalconfig", "another config file, read as the global one"],
  ["prefix", "the directory npm reads and installs global packages in"],
  ["cache", "the directory npm writes its cache and logs in"],
  ["logs-dir", "the directory npm writes its logs in"],
  ["tmp", "the directory npm writes temporary files in"],
]);

/** Keys that choose where a command that reaches the registry connects, and with what. */
const NPMRC_NETWORK_KEYS = new Set(["registry", "proxy", "https-proxy", "http-proxy", "noproxy", "no-proxy", "strict-ssl", "ca", "cafile", "cert", "key", "certfile", "keyfile", "local-address", "always-auth"]);
/** Registries that are not the project's choice: the public ones npm and yarn use by default. */
const DEFAULT_REGISTRY = /^https:\/\/registry\.(npmjs\.org|yarnpkg\.com)\/?$/;
const DEFAULT_REGISTRY_HOST = /^\/\/registry\.(npmjs\.org|yarnpkg\.com)\//;

/** An ini value or key as npm's ini reader reads it: quoted (JSON for double quotes), else up to an unescaped `;` or `#`. */
function iniText(raw: string): string {
  const t = raw.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) {
    if (t.startsWith("'")) return t.slice(1, -1);
    try {
      const v: unknown = JSON.parse(t);
      return typeof v === "string" ? v : t.slice(1, -1);
    } catch {
      return t.slice(1, -1);
    }
  }
  let out = "";
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (c === "\\" && i + 1 < t.length && "\\;#".includes(t[i + 1]!)) {
      out += t[++i]!;
      continue;
    }
    if (c === ";" || c === "#") break;
    out += c;
  }
  return out.trim();
}

/**
 * What in a project `.npmrc` makes npm (pnpm, yarn 1) run a program, read config from or
 * write elsewhere, or, for a command that reaches the registry (`npm view`, `npm outdated`),
 * connect to a host the project chose, with credentials the file may build from the user's
 * environment (`//host/:_authToken=${TOKEN}`); null when nothing does. Read as npm reads it:
 * ini lines `key = value`, `;`/`#` comments, quoted values, `${VAR}` expanded in keys and values.
 */
export function npmrcReason(text: string, network: boolean): string | null {
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith(";") || line.startsWith("#") || /^\[.*\]$/.test(line)) continue;
    const eq = line.indexOf("=");
    const rawKey = iniText(eq < 0 ? line : line.slice(0, eq)).replace(/\[\]$/, "");
    const value = eq < 0 ? "true" : iniText(line.slice(eq + 1));
    // npm expands `${VAR}` in keys too: such a key may be any key.
    if (/\$\{/.test(rawKey)) return `the key ${JSON.stringify(rawKey)} is named by an environment variable`;
    if (rawKey.startsWith("//")) {
      if (network && !DEFAULT_REGISTRY_HOST.test(rawKey)) return `${rawKey} sets credentials or options for a host the project chose`;
      continue;
    }
    const key = rawKey.toLowerCase().replace(/_/g, "-");
    const program = NPMRC_PROGRAM_KEYS.get(key);
    if (program !== undefined) return `${key} = ${JSON.stringify(value)} names ${program}`;
    if (!network) continue;
    if (key === "registry" || key.endsWith(":registry")) {
      if (!DEFAULT_REGISTRY.test(value)) return `${key} = ${JSON.stringify(value)}: the registry the command connects to is the project's choice`;
      continue;
    }
    if (NPMRC_NETWORK_KEYS.has(key) || key.startsWith("-auth") || key === "username" || key === "password" || key === "email") {
      return `${key} = ${JSON.stringify(value)}: how the command connects to the registry is the project's choice`;
    }
  }
  return null;
}

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
  { key: /^submodule\..+\.update$/, benign: /^(checkout|rebase|merge|none|)$/i, what: "a command git submodule update runs" },
  { key: /^help\.format$|^man\.viewer$/, benign: /^(man|)$/i, what: "the viewer git help runs (info, a browser or any program)" },
  { key: /^(help|web)\.browser$|^(man|browser)\..+\.(cmd|path)$/, what: "a viewer program git help runs" },
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

/** What one `git` run in `dir` prints (stdout), or null when it fails (no git, no repository). */
function runGit(dir: string, args: readonly string[]): string | null {
  // armature's own git: hardened, and read-only where the sandbox runs.
  const cmd = engineCommand("git", args, { cwd: dir, findBare: true });
  if (!cmd) return null;
  const r = spawnSync(cmd.file, cmd.args, { cwd: dir, encoding: "utf8", timeout: 5_000, env: cmd.env, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * 1024 * 1024 });
  return r.error || r.status !== 0 ? null : r.stdout;
}

/** How deep submodules of submodules are followed; a deeper one is judged as running a program. */
const SUBMODULE_DEPTH = 8;

/**
 * What the repository git finds from `dir` configures that runs a program, or null. git itself
 * reads its config (`git config --list --includes`: includes, worktree config and the rules of
 * repository discovery, bare repositories included); only the repository's own scopes count.
 * Commands such as `git status` and `git diff` run git again in every checked-out submodule,
 * which reads that submodule's own config (`.git/modules/NAME/config`, or its `.git` directory):
 * those count too, recursively (`depth` > 0: `dir` is a submodule's work tree, which its
 * config names as its `core.worktree`).
 */
function gitConfigReason(dir: string, depth = 0): string | null {
  const cached = gitChecks.get(dir);
  if (cached && cached.stamp === fileStamp(cached.files)) return cached.reason;
  const listed = runGit(dir, ["config", "--list", "--show-scope", "--show-origin", "--includes", "-z"]);
  // No git, or no repository here: git itself will not get further with the command either.
  if (listed === null) return null;
  const fields = listed.split("\0");
  const origins = new Set<string>();
  let reason: string | null = null;
  let gitDir: string | undefined;
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const scope = fields[i]!;
    if (scope !== "local" && scope !== "worktree") continue;
    const origin = fields[i + 1]!.replace(/^file:/, "");
    const file = posix.resolve(dir, origin);
    origins.add(file);
    if (scope === "local" && posix.basename(file) === "config") gitDir ??= posix.dirname(file);
    const entry = fields[i + 2]!;
    const nl = entry.indexOf("\n");
    const key = (nl < 0 ? entry : entry.slice(0, nl)).toLowerCase();
    const value = nl < 0 ? "" : entry.slice(nl + 1);
    // A submodule's git dir names its own work tree: that is where git already is.
    if (depth > 0 && key === "core.worktree" && posix.resolve(posix.dirname(file), value) === dir) continue;
    const hit = GIT_PROGRAM_KEYS.find((k) => k.key.test(key) && !k.benign?.test(value.trim()));
    if (hit && reason === null) reason = `the repository's git config (${origin}) sets ${key} = ${JSON.stringify(value)}: ${hit.what}`;
  }
  if (reason === null) {
    // Checked-out submodules (gitlinks in the index with a `.git` of their own), wherever they are.
    if (gitDir !== undefined) origins.add(posix.join(gitDir, "index"));
    const staged = runGit(dir, ["ls-files", "--stage", "-z", "--", ":/"]);
    for (const line of staged?.split("\0") ?? []) {
      if (!line.startsWith("160000 ")) continue;
      const sub = posix.resolve(dir, line.slice(line.indexOf("\t") + 1));
      try {
        statSync(posix.join(sub, ".git"));
      } catch {
        continue; // not checked out: git looks no further
      }
      origins.add(posix.join(sub, ".git"));
      const inner = depth + 1 >= SUBMODULE_DEPTH ? `submodules nest deeper than ${SUBMODULE_DEPTH}` : gitConfigReason(sub, depth + 1);
      // The answer holds while the submodule's own config files (and its submodules') do not change.
      for (const f of gitChecks.get(sub)?.files ?? []) origins.add(f);
      if (inner) {
        reason = `in the submodule ${posix.relative(dir, sub) || sub}, ${inner}`;
        break;
      }
    }
  }
  const files = [...origins];
  gitChecks.set(dir, { files, stamp: fileStamp(files), reason });
  return reason;
}

/**
 * The nearest of `files` at or above `dir` (with `everyLevel`, the nearest at each level),
 * skipping the user's own (in the home directory).
 */
function projectFiles(dir: string, files: readonly string[], everyLevel: boolean): string[] {
  const home = homedir();
  const found: string[] = [];
  for (let d = dir; ; d = posix.dirname(d)) {
    if (d !== home) {
      for (const f of files) {
        const path = posix.join(d, f);
        try {
          if (statSync(path).isFile()) {
            found.push(path);
            if (!everyLevel) return found;
            break;
          }
        } catch {
          // absent: look further up
        }
      }
    }
    if (d === "/" || d === ".") return found;
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
  if (program === "git" || program === "gh") return GIT_CONFIG_FILES;
  return configFiles.get(program) ?? NONE;
}

/**
 * Why running `program` in any of `dirs` runs code the project ships (or, for a command that
 * reaches the `network`, connects where the project chose), or null. `program` is the command's
 * base name (`git`, `yarn`, `npm`, `cargo`…); other programs are not looked at.
 */
export function projectProgramReason(program: string, dirs: readonly string[], network = false): string | null {
  for (const dir of dirs) {
    // gh runs git in the repository (its remotes, its branch) and so runs what git's config names.
    if (program === "git" || program === "gh") {
      const reason = gitConfigReason(dir);
      if (reason) return reason;
      continue;
    }
    for (const entry of PROGRAM_FILES) {
      if (!entry.programs.includes(program)) continue;
      for (const file of projectFiles(dir, entry.files, entry.everyLevel === true)) {
        let what: string | true | null;
        try {
          what = entry.runs(readFileSync(file, "utf8"), network);
        } catch {
          what = true; // unreadable now, perhaps not when the command runs
        }
        if (what === true) return `${file} is project configuration: ${entry.reason}`;
        if (what !== null) return `${file} is project configuration (${entry.reason}): ${what}`;
      }
    }
  }
  return null;
}
