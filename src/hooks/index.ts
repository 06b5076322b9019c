export * from "./types.js";
export { compileMatcher, MatcherSyntaxError, type HookMatcher } from "./matcher.js";
export {
  parseHooksConfig,
  HookConfigError,
  type HookConfigIssue,
  type ParsedHooksConfig,
  type HookGroup,
  type HookHandler,
  type CommandHookHandler,
  type HttpHookHandler,
} from "./config.js";
export {
  createHookRunner,
  runHooks,
  toolNameIfMatcher,
  DEFAULT_HOOK_TIMEOUT_MS,
  type HookRunnerOptions,
  type ConfiguredHookRunner,
  type HookConfigSource,
  type HookIfMatcher,
} from "./runner.js";
export { HOOK_OUTPUT_MAX_CHARS, interpretExecution, combineVerdicts, type HookExecution, type HookVerdict } from "./verdict.js";
export { expandHeaderValue } from "./http.js";
