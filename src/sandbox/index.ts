// The OS boundary every process armature starts runs in. The decision (permissions/) says which
// boundary a call gets; this module makes it true.
export { chooseBoundary, containsNothingKnownToWrite, isExcludedCommand, sandboxActive, usesNoNetwork, type Boundary, type BoundaryInput, type BoundaryReport, type SandboxState } from "./boundary.js";
export { bwrapArgs, type BwrapPlan } from "./bwrap-args.js";
export { CALL_MARK_VARIABLE, ensureWatchdog, newCallMark, processesMarked } from "./call-mark.js";
export { sandboxPlan, type PlanDirs } from "./plan.js";
export { probeSandbox, resetSandboxProbe, type SandboxProbe } from "./probe.js";
export { applySandboxEnv, DEFAULT_SANDBOX_SETTINGS, mergeSandboxLayers, SandboxSettingsSchema, type MergedSandboxSettings, type SandboxLayer, type SandboxSettings, type SandboxSettingsFile } from "./settings.js";
export { sandboxInfo, sandboxStatus, sandboxUnavailableMessage, type SandboxInfo, type SandboxStatus } from "./status.js";
export { engineCommand, gitProgramsOffEnv, HARDENED_GIT_CONFIG, hardenedGitEnv, type EngineCommand } from "./engine-process.js";
export { trustedExecutable } from "./trusted-executable.js";
