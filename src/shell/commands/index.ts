// Every modelled command's option table, by command name: what ../getopt.ts reads argv with.
import { COREUTILS } from "./coreutils.js";
import { GIT_SUBCOMMANDS } from "./git-subcommands.js";
import { NETWORK, TAR } from "./network.js";
import { TOOLS } from "./tools.js";
import type { CommandTable } from "./types.js";
import { WRAPPERS, type WrapperTable } from "./wrappers.js";

export type { CommandTable, Role, Shape } from "./types.js";
export type { WrapperTable } from "./wrappers.js";
export { WRAPPERS } from "./wrappers.js";

/** Tables of commands that are not wrappers and have no table file of their own. */
const OTHERS: Record<string, CommandTable> = {
  tar: TAR,
  // Partial tables: commands modelled for their targets only (never read-only).
  tree: { partial: true, short: "L:P:I:o:H:T:", long: ["charset=", "filelimit=", "timefmt=", "sort=", "infofile=", "gitfile=", "hintro=", "houtro=", "fromfile", "fromtabfile"], values: { o: "write", gitfile: "read", infofile: "read" }, effects: { R: "unsafe" } },
  hostname: { short: "abdfFiIsyVhA", long: ["alias|a", "boot|b", "domain|d", "fqdn|f", "long", "file=|F", "ip-address|i", "all-ip-addresses|I", "all-fqdns|A", "short|s", "yp|y", "nis", "version", "help"] },
  dd: { partial: true },
  look: { short: "adft:hV", long: ["alternative|a", "alphanum|d", "ignore-case|f", "terminate=|t", "help|h", "version|V"] },
  hd: TOOLS.hexdump as CommandTable,
};

const TABLES: Record<string, CommandTable> = { ...COREUTILS, ...TOOLS, ...NETWORK, ...OTHERS, ...WRAPPERS };
/** The same by name in a Map: every command of every analysis looks its table up, and a Map lookup is one hash probe. */
const BY_NAME: ReadonlyMap<string, CommandTable> = new Map(Object.entries(TABLES));

/** The option table of a command (by its base name), if it is modelled. */
export function tableFor(name: string): CommandTable | undefined {
  return BY_NAME.get(name);
}

export function wrapperTable(name: string): WrapperTable | undefined {
  return Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
}

/** Every modelled command name (for the table check against the installed tools). */
export function tableNames(): string[] {
  return Object.keys(TABLES);
}

/**
 * git's own options before the subcommand (git.c, exact names): `-C dir`, `-c k=v`,
 * `--git-dir[=]dir`… They stop at the subcommand.
 */
export const GIT_GLOBAL: CommandTable = {
  style: "exact",
  stopAtOperand: true,
  short: "C:c:pPvh",
  long: [
    "exec-path=?", "html-path", "man-path", "info-path", "paginate", "no-pager", "no-replace-objects", "bare", "git-dir=", "work-tree=",
    "namespace=", "super-prefix=", "config-env=", "literal-pathspecs", "glob-pathspecs", "noglob-pathspecs", "icase-pathspecs",
    "no-optional-locks", "list-cmds=", "attr-source=", "no-lazy-fetch", "no-advice", "version", "help",
  ],
};

/** A git subcommand's table: parse-options subcommands from `git <sub> -h`; others partial. */
export function gitSubcommandTable(sub: string): CommandTable | undefined {
  return Object.hasOwn(GIT_SUBCOMMANDS, sub) ? GIT_SUBCOMMANDS[sub] : undefined;
}

export { GIT_SUBCOMMANDS };
