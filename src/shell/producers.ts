// Read-only producers of file names (issue 19): `git ls-files …`, `git diff --name-only …` and
// `find …` whose output feeds another command through `$(…)`, a `for` loop over `$(…)` or
// `… | xargs CMD`. What they will print is not known when the command is read, so the analysis
// only names the producer; the permission check runs it (read-only, armature's own hardened
// binary, the sandbox's read-only boundary where it runs) when it decides, and judges the names
// it printed as the paths CMD reads.
//
// The reasoning: a substituted or xargs-fed word is one of the printed lines when no line holds
// a blank, a quote, a backslash or a glob character (bash splits `$(…)` on blanks and expands
// globs; xargs splits on blanks and honours quotes and backslashes). A line that begins with `-`
// or `@` would reach CMD as an option or a response file, which CMD's table would have to judge
// (`-exec`, `--files0-from=.env`, `-f/etc/passwd`): such output, or output of any other shape,
// keeps the read unknown, so the call asks. Plain lines are operands, and CMD reading operands
// is what its own analysis already says (a command that writes or runs its operands, or
// counts them, is not read-only with a word not known in advance: `STRICT_ARGUMENTS`). Each
// name is then judged as a read like a literal one: deny rules (`Read(./.env)`), the working
// directories, and symlinks (a tracked `link -> ~/.ssh/id_rsa` reads the key).
import { spawn } from "node:child_process";
import { engineCommand } from "../sandbox/engine-process.js";
import { projectProgramReason } from "./project-programs.js";
import type { ProducedNames } from "../tool/types.js";
import type { SimpleCommand } from "./command.js";
import { getopt } from "./getopt.js";
import { gitSubcommandTable } from "./commands/index.js";
import { readOnlyObjection } from "./read-only.js";
import type { Word } from "./words.js";

/** ls-files options that change which files are listed, not how they are printed. */
const LS_FILES_OPTIONS = /^(-[cmdok]|--(cached|modified|deleted|others|killed|exclude-standard|full-name|directory|no-empty-directory|deduplicate)|-x|--exclude)$/;

/** find actions that print another format, write or run programs (the default is `-print`). */
const FIND_OUTPUT = /^-(print0|printf|fprint|fprint0|fprintf|ls|fls|exec|execdir|ok|okdir|delete|quit)$/;

/**
 * The argv of a command whose output is one file name a line, relative to the directory it runs
 * in or below the start points it is given: `git ls-files [PATHSPEC…]`, `find DIR… [TESTS]`;
 * or to the top of the work tree (`git diff --name-only`): each name is judged as the path the
 * consumer, in the same directory, will open.
 */
export function fileNameProducer(cmd: SimpleCommand): string[] | undefined {
  const words = cmd.words;
  if (cmd.redirects.length > 0 || cmd.env.length > 0 || cmd.declaration || words.some((w: Word) => !w.isStatic)) return undefined;
  if (readOnlyObjection(cmd) !== undefined) return undefined;
  const argv = words.map((w) => w.text);
  if (argv[0] === "git" && argv[1] === "ls-files") {
    const parsed = getopt(words.slice(1), gitSubcommandTable("ls-files") ?? {});
    if (parsed.errors.length > 0 || parsed.options.some((o) => !LS_FILES_OPTIONS.test(o.name))) return undefined;
    return argv;
  }
  if (argv[0] === "find" && !argv.some((a) => FIND_OUTPUT.test(a)) && findStartsInside(argv)) return argv;
  if (argv[0] === "git" && argv[1] === "diff" && diffNamesOnly(argv.slice(2))) return argv;
  return objectNameProducer(cmd);
}

/** git diff options that choose which changed files are listed, not how (`-z`, `--stat` print otherwise). */
const DIFF_NAME_OPTIONS = /^--(name-only|cached|staged|merge-base|relative|no-relative|no-renames|diff-filter=[ACDMRTUXB*a-z]+)$/;

/**
 * `git diff --name-only [--cached] [REV…] [-- PATH…]`: the changed files, one path a line
 * (names with a blank or a quote come out quoted, which producedNames refuses). Revisions are
 * plain names; pathspecs after `--` only narrow the list.
 */
function diffNamesOnly(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  const before = end === -1 ? args : args.slice(0, end);
  const options = before.filter((a) => a.startsWith("-"));
  if (!options.includes("--name-only") || !options.every((o) => DIFF_NAME_OPTIONS.test(o))) return false;
  return before.filter((a) => !a.startsWith("-")).every((r) => /^[A-Za-z0-9._/~^@{}:-]+$/.test(r));
}

/**
 * `git merge-base REV…`, `git rev-parse [--verify] [-q] [--short] REV…`, `git rev-parse
 * --show-toplevel`: what they print is object names, the static revisions they were given, or
 * a directory's path; never a word that begins with `-`. A git command given their `$(…)` is
 * judged as given a revision (analyze.ts).
 */
export function objectNameProducer(cmd: SimpleCommand): string[] | undefined {
  const words = cmd.words;
  if (cmd.redirects.length > 0 || cmd.env.length > 0 || words.some((w: Word) => !w.isStatic)) return undefined;
  const argv = words.map((w) => w.text);
  if (argv[0] !== "git") return undefined;
  const args = argv.slice(2);
  const revs = args.filter((a) => !a.startsWith("-"));
  if (!revs.every((r) => /^[A-Za-z0-9._/~^@{}:-]+$/.test(r))) return undefined;
  const options = args.filter((a) => a.startsWith("-"));
  if (argv[1] === "merge-base" && options.every((o) => /^--(all|octopus|independent|fork-point)$/.test(o)) && revs.length > 0) return argv;
  if (argv[1] === "rev-parse") {
    if (revs.length === 0 && options.length === 1 && /^--(show-toplevel|show-prefix|show-cdup|absolute-git-dir|git-common-dir|git-dir)$/.test(options[0] as string)) return argv;
    if (revs.length > 0 && options.every((o) => /^(--verify|-q|--quiet|--short(=\d+)?|--abbrev-ref)$/.test(o))) return argv;
  }
  return undefined;
}

/**
 * find's start points (after -H/-L/-P/-D/-O) are relative and stay below the cwd: what it prints
 * of `/` or `..` is outside anyway, and not worth walking while deciding.
 */
function findStartsInside(argv: readonly string[]): boolean {
  let i = 1;
  while (i < argv.length && /^-([HLP]|D|O\d*)$/.test(argv[i] as string)) i += argv[i] === "-D" ? 2 : 1;
  for (; i < argv.length && !/^[-(!]/.test(argv[i] as string); i++) {
    const start = argv[i] as string;
    if (start.startsWith("/") || start.startsWith("~") || start.split("/").includes("..")) return false;
  }
  return true;
}

/** A produced line that is one plain operand to bash and xargs alike. */
const PLAIN_NAME = /^[A-Za-z0-9._+%,:=/][A-Za-z0-9._+%,:=/@-]*$/;

/** Most names a producer's output is judged on; past it, the reads stay unknown. */
export const MAX_PRODUCED_NAMES = 10_000;

/**
 * The names a producer printed, each a plain operand, or why its output cannot be judged as
 * such (a line with a blank, a quote or a glob character, or one that begins with `-` or `@`).
 */
export function producedNames(output: string): string[] | { unknown: string } {
  const lines = output.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  if (lines.length > MAX_PRODUCED_NAMES) return { unknown: `it prints more than ${MAX_PRODUCED_NAMES} names` };
  const odd = lines.find((l) => !PLAIN_NAME.test(l));
  if (odd !== undefined) return { unknown: `it prints ${JSON.stringify(odd.slice(0, 80))}, which is not one plain file name (a blank, a quote, a glob character, or a leading - or @)` };
  return lines;
}

/** How long a producer may take when the permission check runs it. */
const PRODUCER_TIMEOUT_MS = 5_000;
/** Most output read from a producer (10,000 names of a long path each). */
const PRODUCER_MAX_BYTES = 16 * 1024 * 1024;

type Env = Readonly<Record<string, string | undefined>>;

export interface ProducerRun {
  /** Where the command runs. */
  cwd: string;
  /** The environment the command itself will run with (its GIT_* variables decide whose files git lists). */
  commandEnv?: Env;
  /** Stops the producers (the call was aborted while it was being decided). */
  signal?: AbortSignal;
}

/**
 * Runs every producer of one call once, side by side and without blocking the event loop, as
 * armature's own program (a trusted binary; git hardened; in the read-only boundary where the
 * sandbox runs), and returns the names each printed or why they cannot be judged. The
 * permission check reads them from the call's subject; nothing runs while it decides.
 */
export async function runProducers(producers: Readonly<Record<string, readonly string[]>>, run: ProducerRun): Promise<ProducedNames> {
  const byArgv = new Map<string, Promise<string[] | { unknown: string }>>();
  const entries = Object.entries(producers).map(([word, argv]) => {
    const key = JSON.stringify(argv);
    let names = byArgv.get(key);
    if (!names) byArgv.set(key, (names = runProducer(argv, run)));
    return names.then((n) => [word, n] as const);
  });
  return Object.freeze(Object.fromEntries(await Promise.all(entries)));
}

/** Runs one producer now (see runProducers). */
export async function runProducer(argv: readonly string[], run: ProducerRun): Promise<string[] | { unknown: string }> {
  const [program, ...args] = argv;
  if (program === undefined) return { unknown: "no producer" };
  const elsewhere = program === "git" && run.commandEnv ? gitLocationVariable(run.commandEnv, process.env) : undefined;
  if (elsewhere !== undefined) return { unknown: `${elsewhere} is set where the command runs, so git may list another repository's files than the one that can be checked now` };
  // `git diff --name-only` and `git ls-files -m` hash a file whose stat changed through the clean
  // filter the repository's config names: a program of the project's, run before any approval.
  // Such a repository is not listed now (the call asks for its configured programs anyway).
  const configured = program === "git" ? projectProgramReason("git", [run.cwd]) : null;
  if (configured !== null) return { unknown: `git may run a program of the project's while it lists (${configured})` };
  const cmd = engineCommand(program, args, { cwd: run.cwd });
  if (!cmd) return { unknown: `${program} is not installed where the project cannot plant one` };
  const r = await collect(cmd.file, cmd.args, { cwd: run.cwd, env: cmd.env, ...(run.signal ? { signal: run.signal } : {}) });
  if (r.failed !== undefined) return { unknown: `running it now failed (${r.failed})` };
  return producedNames(r.stdout);
}

/**
 * Variables of the command's environment that change which files git lists or how it prints
 * them (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_CONFIG_*`, the pathspec switches…):
 * armature's own git runs without them, so with any of them set its listing is not the command's.
 * Only variables known to change nothing of a listing pass (a ceiling only stops the search for
 * the same repository earlier). So does a HOME other than armature's own.
 */
export function gitLocationVariable(commandEnv: Env, ownEnv: Env): string | undefined {
  for (const [name, value] of Object.entries(commandEnv)) {
    if (value === undefined || !name.startsWith("GIT_")) continue;
    if (!GIT_LISTING_NEUTRAL.test(name)) return name;
  }
  // Where git finds the user's own configuration (core.excludesFile, core.quotePath…).
  for (const name of ["HOME", "XDG_CONFIG_HOME"]) if (commandEnv[name] !== ownEnv[name]) return name;
  return undefined;
}

const GIT_LISTING_NEUTRAL =
  /^GIT_(PAGER|EDITOR|SEQUENCE_EDITOR|TERMINAL_PROMPT|ASKPASS|SSH[A-Z_]*|(SSL|HTTP|CURL|PROXY)_[A-Z_]+|AUTHOR_(NAME|EMAIL|DATE)|COMMITTER_(NAME|EMAIL|DATE)|MERGE_[A-Z_]+|REFLOG_ACTION|OPTIONAL_LOCKS|NO_LAZY_FETCH|TRACE[A-Z0-9_]*|REDACT_COOKIES|PROGRESS_DELAY|FLUSH|PROTOCOL[A-Z_]*|ALLOW_PROTOCOL|CONFIG_NOSYSTEM|CEILING_DIRECTORIES)$/;

/** A child's standard output, read without blocking: at most PRODUCER_MAX_BYTES, within PRODUCER_TIMEOUT_MS. */
function collect(file: string, args: readonly string[], options: { cwd: string; env: Record<string, string>; signal?: AbortSignal }): Promise<{ stdout: string; failed?: string }> {
  return new Promise((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let bytes = 0;
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "ignore"], ...(options.signal ? { signal: options.signal } : {}) });
    const finish = (failed?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (failed !== undefined) child.kill("SIGKILL");
      resolve(failed === undefined ? { stdout: Buffer.concat(chunks).toString("utf8") } : { stdout: "", failed });
    };
    const timer = setTimeout(() => finish(`it took more than ${PRODUCER_TIMEOUT_MS / 1000} s`), PRODUCER_TIMEOUT_MS);
    // Out of descriptors spawn makes no pipe (child.stdout is null) and reports on the next tick.
    child.on("error", (err) => finish(err.message));
    child.stdout?.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > PRODUCER_MAX_BYTES) finish(`it printed more than ${PRODUCER_MAX_BYTES} bytes`);
      else chunks.push(chunk);
    });
    child.on("close", (code, signal) => finish(code === 0 ? undefined : `exit ${code ?? signal}`));
  });
}
