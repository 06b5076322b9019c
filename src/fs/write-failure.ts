import { errnoCode, describeErrno } from "./errno.js";

const ADVICE: Record<string, string> = {
  ENOSPC: "Free some space (or write less), then try again.",
  EDQUOT: "Free some space within the quota, then try again.",
  EFBIG: "Write less, or raise the limit (ulimit -f), then try again.",
  EROFS: "Write somewhere else.",
  EACCES: "Check the permissions of the file and its folder (ls -l).",
  EPERM: "Check the permissions of the file and its folder (ls -l).",
  EMFILE: "Wait for running calls to finish, then try again.",
  ENFILE: "Wait for running calls to finish, then try again.",
  ENAMETOOLONG: "Use a shorter name.",
};

/** The error a writer throws when the file system refused: the original file is untouched. */
export class WriteFailedError extends Error {
  readonly code: string | undefined;
  constructor(path: string, cause: unknown) {
    const code = errnoCode(cause);
    const what = code !== undefined ? describeErrno(code) : (cause as Error | undefined)?.message ?? String(cause);
    const advice = code !== undefined ? ADVICE[code] : undefined;
    super(`${path} was not changed: ${what}. The file keeps its previous content.${advice !== undefined ? ` ${advice}` : ""}`);
    this.name = "WriteFailedError";
    this.code = code;
  }
}

/** File-system errors that mean "the write did not happen"; anything else is passed on as it is. */
export function isFileSystemError(err: unknown): boolean {
  return errnoCode(err) !== undefined;
}
