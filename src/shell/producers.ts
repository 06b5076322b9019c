// Read-only producers of file names (issue 19): `git ls-files …` and `find …` whose output feeds
// another command through `$(…)`, a `for` loop over `$(…)` or `… | xargs CMD`. What they will
// print is not known when the command is read, so the analysis only names the producer; the
// permission check runs it (read-only, armature's own hardened binary, the sandbox's read-only
// boundary where it runs) when it decides, and judges the names it printed as the paths CMD reads.
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
import { spawnSync } from "node:child_process";
import { engineCommand } from "../sandbox/engine-process.js";
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
 * in or below the start points it is given: `git ls-files [PATHSPEC…]`, `find DIR… [TESTS]`.
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
  return objectNameProducer(cmd);
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

/**
 * Runs a producer now, in `cwd`, as armature's own program (a trusted binary; git hardened; in
 * the read-only boundary where the sandbox runs), and returns the names it printed.
 */
export function runProducer(argv: readonly string[], cwd: string): string[] | { unknown: string } {
  const [program, ...args] = argv;
  if (program === undefined) return { unknown: "no producer" };
  const cmd = engineCommand(program, args, { cwd });
  if (!cmd) return { unknown: `${program} is not installed where the project cannot plant one` };
  const r = spawnSync(cmd.file, cmd.args, { cwd, env: cmd.env, encoding: "utf8", timeout: PRODUCER_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] });
  if (r.error || r.status !== 0) return { unknown: `running it now failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})` };
  return producedNames(r.stdout);
}
