// The Bash analysis's door. The analysis (parser, option tables, tokenizers: a third of
// armature's code) is loaded with the grammar by `ensureBashGrammar()`, not when this module is
// imported, so a process that never analyses a command does not compile it. Once loaded,
// `analyzeCommand` is synchronous.
import type { ShellCommandFacts } from "../tool/types.js";


export {
  GIT_AFTER_CD,
  normalizeCommandText,
  isSafeEnvVariable,
  MAX_READ_ONLY_COMMAND_LENGTH,
  MAX_READ_ONLY_SUBCOMMANDS,
  MAX_ANALYSED_COMMAND_LENGTH,
  TRANSPARENT_WRAPPERS,
} from "./shared.js";
export type { AttackCase, BenignCase } from "./corpus.js";

interface Loaded {
  analyze: typeof import("./analyze.js");
  argv: typeof import("./argv.js");
  producers: typeof import("./producers.js");
}
let loaded: Loaded | undefined;
let loading: Promise<void> | undefined;
/** How long loading the grammar took, in ms (0 until it is loaded; reported by the benches). */
export let parserInitMs = 0;

/**
 * Loads the analysis and the bash grammar once (concurrent callers share the load; a failed
 * load is tried again by the next call). `analyzeCommand` throws until it has resolved; the
 * Bash tool's `load()` and the pipeline await it for you.
 */
export function ensureBashGrammar(): Promise<void> {
  if (loaded) return Promise.resolve();
  loading ??= (async () => {
    const [analyze, parser, argv, producers] = await Promise.all([import("./analyze.js"), import("./parser.js"), import("./argv.js"), import("./producers.js")]);
    await parser.ensureBashGrammar();
    parserInitMs = parser.parserInitMs;
    loaded = { analyze, argv, producers };
  })().finally(() => {
    loading = undefined;
  });
  return loading;
}

/** Whether `ensureBashGrammar()` has completed (analysis is then synchronous). */
export function bashGrammarLoaded(): boolean {
  return loaded !== undefined;
}

const NOT_LOADED = "the Bash grammar is not loaded yet: await ensureBashGrammar() (or the Bash tool's load()) before analysing a command";

/** The facts the permission engine matches rules against, for one bash command string. */
export function analyzeCommand(command: string): ShellCommandFacts {
  if (!loaded) throw new Error(NOT_LOADED);
  return loaded.analyze.analyzeCommand(command);
}

/**
 * The analysis's argv parsers (option tables, getopt, tar), for judging shell facts: they exist
 * only once a command was analysed, so the analysis is loaded whenever there are facts to judge.
 */
export function analysisArgv(): typeof import("./argv.js") {
  if (!loaded) throw new Error(NOT_LOADED);
  return loaded.argv;
}

/** Runs a call's file-name producers (`git ls-files`, `find`) before it is decided; loaded with the analysis. */
export function runProducers(...args: Parameters<typeof import("./producers.js").runProducers>): ReturnType<typeof import("./producers.js").runProducers> {
  if (!loaded) throw new Error(NOT_LOADED);
  return loaded.producers.runProducers(...args);
}
