import type { ShellCommandFacts, ShellSubcommand } from "../../tool/types.js";
import { commandFacts } from "../../shell/command-facts.js";

export interface ExitInterpretation {
  isError: boolean;
  /** What a non-error non-zero status means (e.g. `No matches found`). */
  meaning?: string;
}

/** Commands whose exit status 1 is an answer, not a failure. */
const EXIT_ONE_MEANINGS: Record<string, string> = {
  grep: "No matches found",
  egrep: "No matches found",
  fgrep: "No matches found",
  rg: "No matches found",
  diff: "Files differ",
  find: "Some paths could not be read",
  test: "Condition is false",
  "[": "Condition is false",
  "git diff": "Differences found",
  "git grep": "No matches found",
};

/**
 * The command whose status the shell returns: the last simple command at the top level (the
 * end of the last pipeline); its facts see through transparent wrappers such as `timeout` or `nice`.
 */
export function lastTopLevelCommand(facts: ShellCommandFacts | undefined): ShellSubcommand | undefined {
  if (!facts) return undefined;
  for (let i = facts.subcommands.length - 1; i >= 0; i--) {
    const sub = facts.subcommands[i]!;
    if (!sub.nested) return sub;
  }
  return undefined;
}

/** Pure: is this exit status a failure for this command? */
export function interpretExitCode(exitCode: number | null, facts: ShellCommandFacts | undefined): ExitInterpretation {
  if (exitCode === 0) return { isError: false };
  if (exitCode !== 1) return { isError: true };
  const last = lastTopLevelCommand(facts);
  if (last === undefined) return { isError: true };
  const { program, gitSubcommand } = commandFacts(last);
  const key = gitSubcommand !== null ? `git ${gitSubcommand}` : program;
  const meaning = EXIT_ONE_MEANINGS[key];
  return meaning ? { isError: false, meaning } : { isError: true };
}
