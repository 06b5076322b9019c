// Where sessions live by default: the user's config dir, keyed by the project's real path (the
// reference keeps them under ~/.claude/projects/<slug>/), never inside the project, whose files
// a cloned repository controls. And the per-user key that signs what a session saves, so that
// a snapshot restores its "always allowed" rules only when this user's armature wrote it for
// this project.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { realpathSync } from "node:fs";
import { chmod, lstat, mkdir, open, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The user's config dir: $ARMATURE_CONFIG_DIR, else ~/.armature. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return env.ARMATURE_CONFIG_DIR ?? join(home, ".armature");
}

function realOrResolved(path: string): string {
  try {
    return realpathSync.native(resolve(path));
  } catch {
    return resolve(path);
  }
}

/** `/home/u/my proj` → `-home-u-my-proj-1a2b3c4d` (the hash keeps `/a-b` and `/a/b` apart). */
export function projectSlug(projectDir: string): string {
  const real = realOrResolved(projectDir);
  const readable = real.replace(/[^A-Za-z0-9]/g, "-").slice(-120);
  return `${readable}-${createHash("sha256").update(real).digest("hex").slice(0, 8)}`;
}

/** `<config>/projects/<slug>`: the project's sessions folder. */
export function projectSessionsDir(projectDir: string, configDir: string = userConfigDir()): string {
  return join(configDir, "projects", projectSlug(projectDir));
}

/**
 * Creates a folder (and its parents) readable by the user only; a folder that is a symlink, or
 * not the user's, is refused (someone else would choose where the conversation goes).
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory (a symlink there is not followed)`);
  if (typeof process.getuid === "function" && info.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

const KEY_FILE = "session-key";

/** The user's signing key (`<config>/session-key`, 32 random bytes, 0600), created on first use. */
export async function sessionKey(configDir: string = userConfigDir()): Promise<Buffer> {
  const path = join(configDir, KEY_FILE);
  await ensurePrivateDir(configDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const info = await lstat(path);
      if (!info.isFile() || info.size !== 32 || (info.mode & 0o077) !== 0) throw new Error(`${path} is not a private 32-byte key file; remove it to make a new one`);
      return await readFile(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    try {
      const handle = await open(path, "wx", 0o600);
      const key = randomBytes(32);
      try {
        await handle.writeFile(key);
      } finally {
        await handle.close();
      }
      return key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err; // another process made it: read that one
    }
  }
  throw new Error(`cannot read or create ${path}`);
}

/** The signature of a saved state for one project. */
export function signState(key: Buffer, projectDir: string, body: string): string {
  return createHmac("sha256", key).update(realOrResolved(projectDir)).update("\0").update(body).digest("hex");
}

export function verifyState(key: Buffer, projectDir: string, body: string, mac: unknown): boolean {
  if (typeof mac !== "string" || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return timingSafeEqual(Buffer.from(signState(key, projectDir, body), "hex"), Buffer.from(mac, "hex"));
}

/**
 * Where `armature agent` keeps conversations: the folder the user chose (`--session-dir`), else
 * the project's folder in the user's config dir (created 0700). Never `<project>/.armature/sessions`,
 * which a repository could ship (with planted sessions, or as a symlink choosing where the
 * conversation is written).
 */
export async function conversationsDir(cwd: string, chosen: string | undefined, configDir: string = userConfigDir()): Promise<string> {
  if (chosen !== undefined) return resolve(cwd, chosen);
  const dir = projectSessionsDir(cwd, configDir);
  await ensurePrivateDir(dir);
  return dir;
}
