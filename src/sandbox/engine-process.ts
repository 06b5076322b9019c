// The programs armature itself starts (git for its checks and the system prompt, ripgrep for
// Grep): absolute binaries from trusted PATH entries, git told to run nothing the repository
// configures, and inside the read-only boundary where the sandbox runs. Hook commands are the
// user's own and do not come here.
import { dirname } from "node:path";
import { homedir } from "node:os";
import { bwrapArgs } from "./bwrap-args.js";
import { sandboxPlan } from "./plan.js";
import { sandboxStatus } from "./status.js";
import { trustedExecutable } from "./trusted-executable.js";

type Env = Readonly<Record<string, string | undefined>>;

/** In front of every git command armature runs: no fsmonitor, hooks, transports or implicit bare repositories. */
export const HARDENED_GIT_CONFIG = [
  "-c", "core.fsmonitor=false",
  "-c", "core.hooksPath=/dev/null",
  "-c", "protocol.allow=never",
  "-c", "safe.bareRepository=explicit",
  "-c", "core.sshCommand=false",
  "-c", "credential.helper=",
] as const;

/** Variables that point git elsewhere or make it run something: never passed to armature's own git. */
const GIT_UNSAFE_VARIABLE = /^GIT_(DIR|WORK_TREE|COMMON_DIR|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|CONFIG.*|EXEC_PATH|SSH.*|ASKPASS|EXTERNAL_DIFF|PAGER|EDITOR|SEQUENCE_EDITOR|PROXY_COMMAND|TEMPLATE_DIR|NAMESPACE|PREFIX|EXTRA_ARGS)$/;

/** The environment of armature's own git: no lazy fetch, no system config, no discovery above the home's parent. */
export function hardenedGitEnv(env: Env = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !GIT_UNSAFE_VARIABLE.test(k) && k !== "RIPGREP_CONFIG_PATH") out[k] = v;
  const home = env.HOME ?? homedir();
  Object.assign(out, {
    GIT_NO_LAZY_FETCH: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    // A repository at / or /home (a planted .git above every user) is never the project's.
    GIT_CEILING_DIRECTORIES: dirname(home),
  });
  return out;
}

/**
 * Variables that make any git a command runs start none of the programs a repository configures
 * (hooks, fsmonitor), appended to the GIT_CONFIG_COUNT list the environment may already hold: for
 * an excluded command the analysis judged read-only, which runs outside the sandbox unasked.
 */
export function gitProgramsOffEnv(env: Env): Record<string, string> {
  const pairs = [["core.hooksPath", "/dev/null"], ["core.fsmonitor", "false"]] as const;
  const given = Number.parseInt(env.GIT_CONFIG_COUNT ?? "0", 10);
  const start = Number.isSafeInteger(given) && given > 0 ? given : 0;
  const out: Record<string, string> = { GIT_CONFIG_COUNT: String(start + pairs.length) };
  pairs.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${start + i}`] = key;
    out[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  return out;
}

export interface EngineCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * How to start `program` with `args` in `cwd`: its trusted absolute path (undefined: not found
 * where the project cannot plant one), git's hardening, and bwrap's read-only boundary around it
 * when the sandbox runs here (ARMATURE_SANDBOX=0 turns it off).
 */
export function engineCommand(
  program: string,
  args: readonly string[],
  options: { cwd: string; env?: Env; /** Find bare repositories as the user's own git would (a check that predicts it). */ findBare?: boolean },
): EngineCommand | undefined {
  const env = options.env ?? process.env;
  const file = trustedExecutable(program, env);
  if (!file) return undefined;
  const isGit = program === "git" || file.endsWith("/git");
  const config = options.findBare ? HARDENED_GIT_CONFIG.filter((c, i, all) => c !== "safe.bareRepository=explicit" && all[i + 1] !== "safe.bareRepository=explicit") : HARDENED_GIT_CONFIG;
  const argv = isGit ? [file, ...config, ...args] : [file, ...args];
  const childEnv = hardenedGitEnv(env);
  const status = sandboxStatus(undefined, env);
  if (!status.available || status.bwrap === undefined) return { file, args: argv.slice(1), env: childEnv };
  const plan = sandboxPlan("read-only", false, status.settings, { projectDir: options.cwd, additionalDirectories: [], cwd: options.cwd, reportDir: "/", env });
  return { file: status.bwrap, args: bwrapArgs(plan, argv), env: childEnv };
}

/**
 * git commands armature runs to change a repository (`git worktree add|remove|lock`, `branch -D`):
 * the hardened git outside the read-only boundary (they write the repository's git dir), with
 * every filter driver the repository's config names switched off, so that checking files out runs
 * nothing the repository configures (hooks and fsmonitor are off already). `filterDrivers` are
 * the names from `git config --get-regexp '^filter\.'`, read through `engineCommand` first.
 */
export function engineGitWriteCommand(args: readonly string[], options: { cwd: string; filterDrivers: readonly string[]; env?: Env }): EngineCommand | undefined {
  const env = options.env ?? process.env;
  const file = trustedExecutable("git", env);
  if (!file) return undefined;
  const off = options.filterDrivers.flatMap((name) => ["smudge=", "clean=", "process=", "required=false"].flatMap((kv) => ["-c", `filter.${name}.${kv}`]));
  return { file, args: [...HARDENED_GIT_CONFIG, ...off, ...args], env: hardenedGitEnv(env) };
}
