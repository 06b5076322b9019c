import { realCanonicalize } from "../permissions/paths.js";

/**
 * Where a write tool's path led when the call was judged: resolved once by the tool's
 * checkPermissions (which the pipeline runs just before the permission decision, on the very
 * input object the call then receives), handed to the decision as the subject's canonical name
 * (so the engine judges that name, not a second resolution of the path) and compared at write
 * time, so that a symlink created
 * or swapped while the call waited (for a hook, an approval, its turn) is an error instead of a
 * write somewhere that was never judged.
 */
const judged = new WeakMap<object, string>();

/** Resolves `absolutePath` once, records it for `input`, and returns it (the decision judges the same name). */
export function recordJudgedTarget(input: object, absolutePath: string): string {
  const canonical = realCanonicalize(absolutePath);
  judged.set(input, canonical);
  return canonical;
}

/** The recorded target, or undefined when the call was not judged through the pipeline. */
export function judgedTargetOf(input: object): string | undefined {
  return judged.get(input);
}
