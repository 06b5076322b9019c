import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

const NARROW_NBSP = "\u202F";

/** `~` and `~/x` to the home folder; relative paths against `cwd`; the result is normalised. */
export function expandPath(input: string, cwd: string): string {
  let path = input.trim();
  if (path === "~") path = homedir();
  else if (path.startsWith("~/")) path = join(homedir(), path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * macOS names screenshots "Screenshot 2024-05-01 at 10.02.03 AM.png" with U+202F before AM/PM;
 * models type a plain space (and sometimes the reverse). Returns the other spelling, if any.
 */
export function screenshotNameAlternative(path: string): string | undefined {
  const name = basename(path);
  let alt: string;
  if (name.includes(NARROW_NBSP)) alt = name.replaceAll(NARROW_NBSP, " ");
  else if (/ (AM|PM)\./.test(name)) alt = name.replace(/ (AM|PM)\./g, `${NARROW_NBSP}$1.`);
  else return undefined;
  return join(dirname(path), alt);
}

/**
 * The absolute path a file tool works on: expanded, and when the file does not exist under
 * that name but does under the other screenshot spelling, that one. Deterministic for a given
 * file system state, so the permission stage and the call see the same path.
 */
export function resolveToolPath(input: string, cwd: string): string {
  const path = expandPath(input, cwd);
  // Only a name with another spelling is looked up (a stat per call for every other name was
  // the most frequent system call of a file tool's permission check).
  const alt = screenshotNameAlternative(path);
  if (alt === undefined || existsSync(path)) return path;
  return existsSync(alt) ? alt : path;
}

const BLOCKED_DEVICES = new Set([
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
  "/dev/full",
  "/dev/stdin",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/tty",
  "/dev/console",
  "/dev/ptmx",
]);

/** Paths that never end or that block when read, refused by name before any open. */
export function isBlockedDevicePath(path: string): boolean {
  if (BLOCKED_DEVICES.has(path)) return true;
  if (/^\/dev\/fd\/\d+$/.test(path)) return true;
  if (/^\/proc\/(self|thread-self|\d+)\/fd\/\d+$/.test(path)) return true;
  if (/^\/dev\/(tty|pts\/)/.test(path)) return true;
  return false;
}

/** A path as the model should see it in messages: relative to cwd when inside it. */
export function displayPath(path: string, cwd: string): string {
  if (path === cwd) return ".";
  const prefix = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}
