// System errors in words. libuv names only the errnos it knows: EDQUOT (a disk quota) reaches
// Node as code "Unknown system error -122", which tells the model (and a user) nothing. Here an
// error's code is worked out from its errno number as well, and each code a file or process
// operation can meet has a phrase.
import { constants } from "node:os";

const NAMES = new Map<number, string>();
for (const [name, value] of Object.entries(constants.errno)) if (!NAMES.has(value)) NAMES.set(value, name);

/** What a failed operation ran into, worded for someone deciding what to do next. */
const CAUSES: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is exceeded",
  EFBIG: "the file would be larger than allowed (the file system's or this process's file size limit)",
  EROFS: "the file system is mounted read-only",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted",
  EIO: "an I/O error of the device",
  ENAMETOOLONG: "the name is too long",
  EMLINK: "too many links",
  EXDEV: "the temp file and the target are on different devices",
  EMFILE: "this process has too many open files",
  ENFILE: "the system has too many open files",
  EAGAIN: "the resource is temporarily unavailable (too many processes, or not enough memory)",
  ENOMEM: "not enough memory",
  EBUSY: "the file or device is busy",
  ETXTBSY: "the file is a program that is running",
  ELOOP: "too many levels of symbolic links",
  ENOTDIR: "a component of the path is not a folder",
  EISDIR: "it is a folder",
  ENOENT: "no such file or folder",
  EEXIST: "the file already exists",
  ENOTEMPTY: "the folder is not empty",
  ESTALE: "the network file handle is stale",
};

/**
 * The symbolic code of a system error (`EDQUOT`), from its code when libuv named it, else from
 * its errno number; undefined for an error that is not a system error.
 */
export function errnoCode(err: unknown): string | undefined {
  if (err === null || typeof err !== "object") return undefined;
  const { code, errno } = err as { code?: unknown; errno?: unknown };
  if (typeof code === "string" && /^E[A-Z0-9]+$/.test(code)) return code;
  if (typeof errno === "number" && errno !== 0) return NAMES.get(Math.abs(errno));
  if (typeof code === "string") {
    const m = /^Unknown system error (-?\d+)$/.exec(code);
    if (m) return NAMES.get(Math.abs(Number(m[1])));
  }
  return undefined;
}

/** The phrase for a code (`"the disk quota is exceeded"`), or undefined when there is none. */
export function errnoCause(code: string): string | undefined {
  return CAUSES[code];
}

/** `"the disk quota is exceeded (EDQUOT)"`, or the code alone when it has no phrase. */
export function describeErrno(code: string): string {
  const cause = CAUSES[code];
  return cause === undefined ? code : `${cause} (${code})`;
}

/**
 * The error with its code named: when libuv could not name it (`Unknown system error -122`),
 * `code` becomes the symbolic name and the message says it in words; anything else is returned
 * as it is.
 */
export function nameSystemError<T>(err: T): T {
  if (!(err instanceof Error)) return err;
  const raw = (err as NodeJS.ErrnoException).code;
  if (typeof raw === "string" && /^E[A-Z0-9]+$/.test(raw)) return err;
  const code = errnoCode(err);
  if (code === undefined) return err;
  const unknown = /Unknown system error -?\d+/g;
  const message = unknown.test(err.message) ? err.message.replace(unknown, describeErrno(code)) : `${err.message} (${describeErrno(code)})`;
  try {
    (err as NodeJS.ErrnoException).code = code;
    err.message = message;
    return err;
  } catch {
    // A frozen error: a copy that says it.
    const copy = new Error(message) as NodeJS.ErrnoException;
    copy.code = code;
    return copy as T;
  }
}

/** Codes that mean "too much is open or running right now", not "this cannot work". */
const EXHAUSTED = new Set(["EMFILE", "ENFILE", "EAGAIN", "ENOMEM"]);

/** Whether the error is one of those: out of descriptors or processes, for now. */
export function isExhaustion(err: unknown): boolean {
  return EXHAUSTED.has(errnoCode(err) ?? "");
}

/**
 * The error for a process (or pipe, or file) that could not be started or opened: what, why in
 * words, and what to do when it is only for now. The code is kept.
 */
export function startFailure(what: string, cause: unknown): Error & { code?: string } {
  const code = errnoCode(cause);
  const why = code !== undefined ? describeErrno(code) : cause instanceof Error ? cause.message : String(cause);
  const advice = code !== undefined && EXHAUSTED.has(code) ? " Too much is open or running at once: wait for running calls to finish (or make fewer at once), then try again." : "";
  const err = new Error(`${what} could not be started: ${why}.${advice}`) as Error & { code?: string };
  if (code !== undefined) err.code = code;
  return err;
}
