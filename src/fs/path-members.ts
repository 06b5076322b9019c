import type { PermissionSubject, ToolPermissionResult, ToolUseContext, ValidationResult } from "../tool/types.js";
import { recordJudgedTarget } from "./judged-target.js";
import { resolveToolPath } from "./path.js";

const VALID: ValidationResult = { result: true };

/**
 * The members every file tool shares, for the input key that names its file: a path with a
 * NUL byte is refused before anything touches the disk (then the tool's own `check`, if any);
 * hooks and the permission engine see the absolute path, the transcript keeps what the model
 * wrote. A writing tool records where its path leads when it is judged (see judged-target.ts).
 */
export function filePathMembers<I extends Record<K, string>, K extends string>(
  key: K,
  access: "read" | "write",
  check?: (input: I) => ValidationResult | undefined,
) {
  return {
    validateInput(input: I): ValidationResult {
      if (input[key].includes("\0")) return { result: false, message: `${key} contains a NUL character.`, errorCode: "nul" };
      return check?.(input) ?? VALID;
    },
    backfillObservableInput(input: I, context: ToolUseContext): I {
      return { ...input, [key]: resolveToolPath(input[key], context.workspace.cwd) };
    },
    permissionSubject(input: I, context: ToolUseContext): PermissionSubject {
      return { kind: "file", access, paths: [resolveToolPath(input[key], context.workspace.cwd)] };
    },
    getToolUseSummary: (input: I): string => input[key],
    checkPermissions(input: I, context: ToolUseContext): ToolPermissionResult {
      if (access !== "write") return { behavior: "passthrough" };
      const path = resolveToolPath(input[key], context.workspace.cwd);
      // One resolution, used by both the decision and the write.
      return { behavior: "passthrough", subject: { kind: "file", access, paths: [path], canonical: [recordJudgedTarget(input, path)] } };
    },
  };
}
