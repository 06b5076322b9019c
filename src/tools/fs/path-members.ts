import type { PermissionSubject, ToolUseContext, ValidationResult } from "../../tool/types.js";
import { resolveToolPath } from "./path.js";

/**
 * The members every file tool shares, for the input key that names its file: hooks and the
 * permission engine see the absolute path, the transcript keeps what the model wrote.
 */
export function filePathMembers<I extends Record<K, string>, K extends string>(key: K, access: "read" | "write") {
  return {
    backfillObservableInput(input: I, context: ToolUseContext): I {
      return { ...input, [key]: resolveToolPath(input[key], context.workspace.cwd) };
    },
    permissionSubject(input: I, context: ToolUseContext): PermissionSubject {
      return { kind: "file", access, paths: [resolveToolPath(input[key], context.workspace.cwd)] };
    },
    getToolUseSummary: (input: I): string => input[key],
  };
}

/** A path with a NUL byte can never name a file: refuse it before anything touches the disk. */
export function nulPathError(path: string, key: string): ValidationResult | undefined {
  return path.includes("\0") ? { result: false, message: `${key} contains a NUL character.`, errorCode: "nul" } : undefined;
}
