import { realCanonicalize } from "../../permissions/paths.js";

/**
 * Where a write tool's path led when the call was judged: recorded by the tool's
 * checkPermissions (which the pipeline runs just before the permission decision, on the very
 * input object the call then receives) and compared at write time, so that a symlink created
 * or swapped while the call waited (for a hook, an approval, its turn) is an error instead of a
 * write somewhere that was never judged.
 */
const judged = new WeakMap<object, string>();

export function recordJudgedTarget(input: object, absolutePath: string): void {
  judged.set(input, realCanonicalize(absolutePath));
}

/** The recorded target, or undefined when the call was not judged through the pipeline. */
export function judgedTargetOf(input: object): string | undefined {
  return judged.get(input);
}
