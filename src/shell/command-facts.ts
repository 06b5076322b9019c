// One simple command as every consumer reads it (the permission engine, rule matching, the
// sandbox plan), computed once per subcommand and frozen: the analysis builds it for each
// subcommand it returns, and a subcommand made elsewhere (a test, a rewritten one) gets its own
// on first use. Consumers read these fields instead of deriving them from argv again.
import { posix } from "node:path";
import type { ShellSubcommand, ShellTreeWriter } from "../tool/types.js";
import { effectiveArgv, needsExactRule, onlySafeEnv, restrictiveTexts, subcommandTexts } from "./bash-rules.js";
import { isStaticWord } from "./shared.js";

export interface CommandFacts {
  /** What really runs, transparent wrappers removed (`timeout 5 rm x` is `rm x`). */
  readonly argv: readonly string[];
  /** The program's name, its path's last part (`/bin/rm` is `rm`); `""` for an empty command. */
  readonly program: string;
  /** The program is named before the command runs (not `$(echo rm)`, `r${x}m`, `$"cat"`, a glob). */
  readonly programKnown: boolean;
  /** Texts allow rules match: as written and with transparent wrappers removed. */
  readonly texts: readonly string[];
  /** Texts deny and ask rules match: also the canonical forms, what an unmodelled command may run, the program without its path. */
  readonly restrictiveTexts: readonly string[];
  /** The same with `$"…"` read as its C-locale literal (for a command that has one). */
  readonly localeRestrictiveTexts: readonly string[];
  /** Only an exact rule may allow it (exec wrappers, `find -exec`/`-delete`). */
  readonly exactRuleOnly: boolean;
  /** Its environment assignments are all ones an allow rule may look past. */
  readonly safeEnv: boolean;
  /** Paths it reads and writes, as written (empty when the command was only split). */
  readonly reads: readonly string[];
  readonly writes: readonly string[];
  /** It writes whole trees whose names the command line does not show. */
  readonly treeWriter: ShellTreeWriter["kind"] | null;
  /** The analysis does not model it: any later word may start a command. */
  readonly unknown: boolean;
}

const built = new WeakMap<ShellSubcommand, CommandFacts>();

/** The facts of one subcommand: built once per subcommand object, then the same frozen value. */
export function commandFacts(sub: ShellSubcommand): CommandFacts {
  let facts = built.get(sub);
  if (!facts) {
    facts = buildCommandFacts(sub);
    built.set(sub, facts);
  }
  return facts;
}

function buildCommandFacts(sub: ShellSubcommand): CommandFacts {
  const argv = Object.freeze([...effectiveArgv(sub)]);
  const program = posix.basename(argv[0] ?? "");
  const restrictive = Object.freeze(restrictiveTexts(sub, false));
  return Object.freeze({
    argv,
    program,
    programKnown: isStaticWord(argv[0] ?? ""),
    texts: Object.freeze(subcommandTexts(sub)),
    restrictiveTexts: restrictive,
    // Without a `$` in any text, reading `$"…"` as its literal changes none of them.
    localeRestrictiveTexts: restrictive.some((t) => t.includes("$")) ? Object.freeze(restrictiveTexts(sub, true)) : restrictive,
    exactRuleOnly: needsExactRule(sub),
    safeEnv: onlySafeEnv(sub),
    reads: Object.freeze([...(sub.targets?.read ?? [])]),
    writes: Object.freeze([...(sub.targets?.write ?? [])]),
    treeWriter: sub.treeWriter?.kind ?? null,
    unknown: sub.opaque === true,
  });
}
