export {
  analyzeCommand,
  normalizeCommandText,
  MAX_READ_ONLY_COMMAND_LENGTH,
  MAX_READ_ONLY_SUBCOMMANDS,
  MAX_ANALYSED_COMMAND_LENGTH,
} from "./analyze.js";
export { parserInitMs, ensureBashGrammar, bashGrammarLoaded } from "./parser.js";
export { TRANSPARENT_WRAPPERS } from "./wrappers.js";
export { isSafeEnvVariable } from "./read-only.js";
export type { AttackCase, BenignCase } from "./corpus.js";
