// Which OS boundary a call runs in: a pure function of the decision's facts. The analysis says
// whether the call only reads; the sandbox makes that true whatever the command really does.
import { posix } from "node:path";

export type Boundary = "read-only" | "workspace-write" | "unsandboxed";
/** As reported (`armature permissions check`): `unavailable` when the sandbox is on but cannot run here. */
export type BoundaryReport = Boundary | "unavailable";

/** What the decision knows of the sandbox: the settings and whether it can run. */
export interface SandboxState {
  enabled: boolean;
  available: boolean;
  autoAllowBashIfSandboxed: boolean;
  allowUnsandboxedCommands: boolean;
  /** bypassPermissions may run a `dangerouslyDisableSandbox` call without asking (the user's own setting said so). */
  unsandboxedUnasked?: boolean;
  excludedCommands: readonly string[];
}

/** What the boundary reads of each simple command: its facts (src/shell/command-facts.ts). */
export interface BoundaryCommand {
  /** What really runs, transparent wrappers removed. */
  readonly argv: readonly string[];
  /** The program's base name; `""` for an empty command. */
  readonly program: string;
  /** What it runs besides its program (a command it starts is also a simple command of the call). */
  readonly executions: ReadonlyArray<{ readonly kind: "command" | "script" | "may"; readonly text: string }>;
}

export interface BoundaryInput {
  sandbox: SandboxState | undefined;
  /** The analysis proved the call read-only (or the decision runs it read-only instead of asking). */
  readOnly: boolean;
  /** Every simple command of the call, nested ones included. */
  commands: readonly BoundaryCommand[];
  /** The call asked for `dangerouslyDisableSandbox`. */
  disableSandbox: boolean;
}

export function sandboxActive(sandbox: SandboxState | undefined): sandbox is SandboxState {
  return sandbox !== undefined && sandbox.enabled && sandbox.available;
}

/**
 * The boundary: none when the sandbox is off (or cannot run: `unavailable`, the analysis alone
 * decides then); outside it for an excluded command or an approved `dangerouslyDisableSandbox`
 * (the Bash tool asks for that); read-only for a read-only call; else the working directories.
 */
export function chooseBoundary(input: BoundaryInput): BoundaryReport {
  const { sandbox } = input;
  if (!sandbox?.enabled) return "unsandboxed";
  if (!sandbox.available) return "unavailable";
  if (isExcludedCommand(input.commands, sandbox.excludedCommands)) return "unsandboxed";
  if (input.disableSandbox && sandbox.allowUnsandboxedCommands) return "unsandboxed";
  return input.readOnly ? "read-only" : "workspace-write";
}

/**
 * Every simple command matches an entry of `excludedCommands`: `docker` (that program, any
 * arguments), `docker compose *` or `docker compose` (those first words). A compound with one
 * other command stays inside: the other command must not leave with it.
 */
export function isExcludedCommand(commands: readonly BoundaryCommand[], excluded: readonly string[]): boolean {
  if (commands.length === 0 || excluded.length === 0) return false;
  const patterns = excluded.map((e) => e.trim().replace(/(\s*\*|:\*)$/, "").split(/\s+/).filter(Boolean)).filter((p) => p.length > 0);
  return commands.every(({ argv, program }) => patterns.some((p) => p.every((word, i) => (i === 0 ? program === word || argv[0] === word : argv[i] === word))));
}

/**
 * Programs known to write files, run other programs' code, change the system or reach the
 * network. A call with none of them, and no write target the analysis found, may run in the
 * read-only boundary without asking: whatever it really does there, it can change nothing.
 */
const KNOWN_EFFECTS = new Set([
  "rm", "rmdir", "unlink", "mv", "cp", "ln", "link", "mkdir", "touch", "chmod", "chown", "chgrp", "chattr", "dd", "truncate",
  "install", "rsync", "scp", "sftp", "tee", "sed", "awk", "gawk", "mawk", "nawk", "perl", "python", "python2", "python3",
  "node", "nodejs", "deno", "bun", "ruby", "php", "lua", "tclsh", "bash", "sh", "zsh", "dash", "ksh", "fish", "csh", "tcsh",
  "eval", "exec", "source", ".", "sudo", "su", "doas", "pkexec", "npm", "npx", "pnpm", "pnpx", "yarn", "bunx", "make",
  "cmake", "ninja", "cargo", "rustc", "go", "gcc", "cc", "clang", "pip", "pip3", "pipx", "uv", "uvx", "poetry", "gradle",
  "gradlew", "mvn", "mvnw", "ant", "git", "hg", "svn", "curl", "wget", "ssh", "nc", "ncat", "netcat", "socat", "telnet",
  "ftp", "docker", "podman", "kubectl", "helm", "terraform", "patch", "tar", "unzip", "zip", "gzip", "gunzip", "xz",
  "unxz", "bzip2", "bunzip2", "zstd", "7z", "split", "csplit", "shred", "mkfifo", "mknod", "kill", "pkill", "killall",
  "crontab", "at", "systemctl", "service", "apt", "apt-get", "dpkg", "rpm", "yum", "dnf", "brew", "snap", "flatpak",
  "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "code", "open", "xdg-open", "mount", "umount", "chroot",
  "unshare", "nsenter", "setsid", "nohup", "screen", "tmux", "expect", "script", "gdb", "strace", "ltrace", "osascript",
]);

/**
 * Nothing in the call is known to write: no write target, and no program from the list of known
 * effects, run or started (`xargs rm`, `find -exec rm`, `env rm`), unless the analysis judged that
 * command read-only on its own (`judgedReadOnly[i]`: `git diff --name-only`, `sed -n 5p f`, `tar
 * -tf a.tar` feeding an `xargs` or a loop; `xargs git show` is not, whatever `git show` alone is).
 * A command started with words only known when it runs (`xargs $cmd`, `xargs grep "$p"`) does not
 * pass. Substitutions, loop variables, globs and unmodelled tools pass, whatever words they are
 * given (`pgrep -a node`, `parallel rm ::: a`): the read-only boundary is what holds them.
 */
export function containsNothingKnownToWrite(
  facts: { complete: boolean; writeTargets: readonly string[] },
  commands: readonly BoundaryCommand[],
  judgedReadOnly: readonly boolean[] = [],
): boolean {
  if (!facts.complete || facts.writeTargets.length > 0 || commands.length === 0) return false;
  for (const [i, { program, executions }] of commands.entries()) {
    if (program === "") return false;
    if (judgedReadOnly[i] === true) continue;
    if (KNOWN_EFFECTS.has(program)) return false;
    for (const e of executions) {
      if (e.kind !== "command") continue;
      if (e.text.includes("$") || KNOWN_EFFECTS.has(posix.basename(e.text.split(" ", 1)[0] ?? ""))) return false;
    }
  }
  return true;
}

/**
 * Programs that never speak HTTP or open a connection: shell builtins and the file and text tools.
 * A call made only of them gets no network proxy even when approved to reach hosts — it could not
 * use one, and the proxy (a node bridge inside the sandbox) costs more than the command.
 */
const LOCAL_ONLY = new Set([
  "true", "false", ":", "echo", "printf", "test", "[", "[[", "cd", "pwd", "export", "unset", "set", "shift", "read", "exit",
  "return", "local", "declare", "typeset", "readonly", "let", "type", "hash", "alias", "unalias", "umask", "wait", "trap",
  "cat", "tac", "head", "tail", "wc", "sort", "uniq", "cut", "paste", "join", "tr", "fold", "fmt", "nl", "expand", "unexpand",
  "rev", "tee", "grep", "egrep", "fgrep", "comm", "diff", "cmp", "ls", "stat", "file", "du", "df", "find", "basename",
  "dirname", "realpath", "readlink", "mkdir", "rmdir", "touch", "rm", "mv", "cp", "ln", "chmod", "truncate", "date", "sleep",
  "seq", "yes", "md5sum", "sha1sum", "sha256sum", "sha512sum", "base64", "od", "xxd", "hexdump", "whoami", "id", "uname",
  "env", "printenv", "nproc", "mktemp", "split", "csplit", "shuf", "tsort", "numfmt",
]);

/** What usesNoNetwork reads of each simple command: its facts (src/shell/command-facts.ts). */
export interface NetworkFacts {
  readonly program: string;
  readonly programKnown: boolean;
  /** Commands and scripts it starts besides its program (`find -exec`, `env cmd`, `xargs cmd`). */
  readonly executions: readonly unknown[];
}

/**
 * Every simple command of the call is one of the programs above, named before it runs, and
 * starts no other program (`find -exec`, `env cmd`: transparent wrappers are already removed).
 */
export function usesNoNetwork(facts: { complete: boolean }, commands: readonly NetworkFacts[]): boolean {
  if (!facts.complete || commands.length === 0) return false;
  return commands.every((c) => c.programKnown && c.program !== "" && LOCAL_ONLY.has(c.program) && c.executions.length === 0);
}

/**
 * Whether an allowed call may reach the network from inside the workspace-write boundary: when
 * someone approved it — a human or the classifier (it asked), an allow rule, a hook, bypass mode.
 * A call only a mode let through (acceptEdits' file commands) and every read-only call get none.
 */
export function networkApproved(decision: { behavior: string; rule: string | null; source: string | null }, asked: boolean): boolean {
  if (decision.behavior !== "allow") return false;
  if (asked || decision.rule !== null) return true;
  return decision.source === "hook" || decision.source === "mode:bypassPermissions";
}
