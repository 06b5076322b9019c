export { VCS_DIRECTORIES, isVcsDirectory, expandHome, resolveSearchPath, displayPath, comparePathsDepthFirst, plural } from "./paths.js";
export { parseIgnoreLine, parseIgnoreFile, matchIgnoreList, compileOverrides } from "./gitignore.js";
export type { IgnoreDecision, IgnoreRule, IgnoreList, OverrideMatcher } from "./gitignore.js";
