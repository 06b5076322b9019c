// The shape of a command's option table: what the one parser (../getopt.ts) needs to read argv,
// and what each option value is, so that reads, writes and execution follow from the table.
import type { ShellRepositoryReads } from "../../tool/types.js";

/** How an option takes its value: none, always (attached or the next word), or only attached. */
export type Shape = "none" | "required" | "optional";

/**
 * What an option's value (or the option itself) is:
 * - `read`: a file the command reads; `write`: a file it writes (or creates, or a directory it writes into);
 * - `list`: a file naming more files to read (`--files0-from=F`, `-T F`); `-` is standard input;
 * - `exec`: a program or command the tool runs; `unsafe`: any other effect (sets the clock, opens
 *   a prompt on stdin, changes configuration): never read-only;
 * - `sed` / `awk` / `jq`: a program in that language, judged by its tokenizer; `program`: a file
 *   holding a program the tool runs (read, and never read-only);
 * - `config`: a configuration file that may name more files to write (read; its writes are unknown);
 * - `data` (`@FILE` reads FILE), `form` (`name=@FILE` / `name=<FILE`), `cookie` (a value without
 *   `=` is a file), `date` (a value starting with `/` or `.` is a file whose time is used).
 */
export type Role =
  | "read" | "write" | "list" | "exec" | "unsafe" | "sed" | "awk" | "jq" | "program" | "config" | "data" | "form" | "cookie" | "date";

export interface CommandTable {
  /** getopt's optstring: `x` takes no value, `x:` a required one, `x::` an attached-only one. */
  short?: string;
  /**
   * Long options: `name`, `name=` (required value), `name=?` (only `--name=value`), `alias>name`;
   * `|` and short letters after any of the first three say those letters are the same option
   * (`output=|o`, `recursive|rR`), as the tool's help pairs them (checked by tables.test.ts).
   */
  long?: readonly string[];
  /** `gnu`: getopt_long (prefixes); `git`: parse-options (prefixes, `--no-`); `exact`: no abbreviation. */
  style?: "gnu" | "git" | "exact";
  /** Options stop at the first operand (optstring `+`): the rest is the command a wrapper runs. */
  stopAtOperand?: boolean;
  /** `-NUM` is an option (`head -5`, `git log -3`). */
  numeric?: boolean;
  /** What option values are, by short letter or long (canonical) name (a paired letter may be looked up by either). */
  values?: Readonly<Record<string, Role>>;
  /** Options whose mere presence is not read-only, by short letter or long name, with why. */
  effects?: Readonly<Record<string, Role>>;
  /**
   * Only the options that matter are listed: an unknown option is no error (it takes no value
   * unless written `--name=value`). Such a command is never read-only.
   */
  partial?: boolean;
  /** With `partial`: an unknown `--name` written without `=` takes the next word (a second reading of argv). */
  unknownTakesValue?: boolean;
  /** `@FILE` operands are response files: the tool reads more options (and files) from FILE. */
  responseFiles?: boolean;
}

/** git's reads from the top of its work tree (src/tool/types.ts holds the shape: subcommands carry it). */
export type RepositoryReads = ShellRepositoryReads;

/** The paths one command writes, reads and changes directory to, as written. */
export interface Targets {
  write: string[];
  read: string[];
  cd: string[];
  /** git's reads from the top of its work tree (also in `read` as if the shell's directory were the top). */
  fromTop?: RepositoryReads;
}
