/** Why a write failed, in words the model (or a user) can act on; the code stays in the text. */
const CAUSES: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is exceeded",
  EFBIG: "the file would be larger than the file system allows",
  EROFS: "the file system is mounted read-only",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted",
  EIO: "an I/O error of the device",
  ENAMETOOLONG: "the name is too long",
  EMLINK: "too many links",
  EXDEV: "the temp file and the target are on different devices",
};

const ADVICE: Record<string, string> = {
  ENOSPC: "Free some space (or write less), then try again.",
  EDQUOT: "Free some space within the quota, then try again.",
  EROFS: "Write somewhere else.",
  EACCES: "Check the permissions of the file and its folder (ls -l).",
  EPERM: "Check the permissions of the file and its folder (ls -l).",
};

/** The error a writer throws when the file system refused: the original file is untouched. */
export class WriteFailedError extends Error {
  readonly code: string | undefined;
  constructor(path: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    const what = code !== undefined && CAUSES[code] !== undefined ? `${CAUSES[code]} (${code})` : (cause as Error | undefined)?.message ?? String(cause);
    const advice = code !== undefined ? ADVICE[code] : undefined;
    super(`${path} was not changed: ${what}. The file keeps its previous content.${advice !== undefined ? ` ${advice}` : ""}`);
    this.name = "WriteFailedError";
    this.code = code;
  }
}

/** File-system errors that mean "the write did not happen"; anything else is passed on as it is. */
export function isFileSystemError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code);
}
