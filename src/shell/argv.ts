// The argv parsers the permission engine uses on shell facts (tree writers: tar, cp, rsync,
// patch…). Reached through `analysisArgv()` in index.ts, so they load with the analysis.
export { literalWord } from "./command.js";
export { tableFor } from "./commands/index.js";
export { getopt } from "./getopt.js";
export { tarParse } from "./tar.js";
