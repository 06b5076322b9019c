import { mkdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { parseRule } from "../permissions/rule.js";
import { atomicWriteFile } from "../fs/atomic-write.js";
import type { RuleBehavior } from "../tool/types.js";
import { SettingsError, validateSettings } from "./schema.js";
import { projectTrustStatus, trustProject, type TrustOptions } from "./trust.js";
import { outsideProjectReason, projectSettingsPath } from "./project-inputs.js";

export type PersistScope = "local" | "project" | "user";

/** The file an "always allow" answer writes to for a scope. */
export function settingsPathFor(scope: PersistScope, projectDir: string, options: { home?: string; userDir?: string } = {}): string {
  if (scope === "local" || scope === "project") {
    const file = projectSettingsPath(projectDir, scope, false);
    // A shipped `.armature -> ~/.armature` would turn a project's rule into the user's global one.
    const outside = outsideProjectReason(projectDir, relative(projectDir, file));
    if (outside !== undefined) throw new SettingsError(file, null, `${outside}; the rule was not saved (save it in your user settings instead)`);
    return file;
  }
  const userDir = options.userDir ?? process.env.ARMATURE_CONFIG_DIR ?? join(options.home ?? homedir(), ".armature");
  return join(userDir, "settings.json");
}

/**
 * Adds rules to a settings file atomically (a uniquely named temp file in the same directory,
 * fsync, then rename): other keys are kept, a rule already there is not repeated. A file that
 * is not valid JSON or not valid settings is never overwritten: that is an error naming the
 * file. Rules the user approves into a trusted project's own settings keep it trusted (its pin
 * is renewed): the change is the user's, not the repository's.
 */
export async function addPermissionRules(file: string, behavior: RuleBehavior, rules: readonly string[], trust: TrustOptions = {}): Promise<string[]> {
  for (const raw of rules) parseRule(raw, behavior, file);
  // One read-modify-write at a time per file in this process: two answers at once both land.
  const key = resolve(file);
  const turn = (pending.get(key) ?? Promise.resolve()).then(() => addRules(file, behavior, rules, trust));
  const settled = turn.then(
    () => undefined,
    () => undefined,
  );
  pending.set(key, settled);
  void settled.then(() => {
    if (pending.get(key) === settled) pending.delete(key);
  });
  return turn;
}

const pending = new Map<string, Promise<void>>();

async function addRules(file: string, behavior: RuleBehavior, rules: readonly string[], trust: TrustOptions): Promise<string[]> {
  let json: Record<string, unknown> = {};
  try {
    const text = await readFile(file, "utf8");
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch (err) {
      throw new SettingsError(file, null, `not valid JSON, so it was left as is (${(err as Error).message})`);
    }
    validateSettings(json, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const permissions = (json.permissions ?? {}) as Record<string, unknown>;
  const existing = Array.isArray(permissions[behavior]) ? (permissions[behavior] as string[]) : [];
  const added = rules.filter((r) => !existing.includes(r));
  if (added.length === 0) return [];
  json.permissions = { ...permissions, [behavior]: [...existing, ...added] };
  const configDir = dirname(file);
  const projectDir = basename(configDir) === ".armature" || basename(configDir) === ".claude" ? dirname(configDir) : undefined;
  const wasTrusted = projectDir !== undefined && (await projectTrustStatus(projectDir, trust)).state === "trusted";
  await mkdir(dirname(file), { recursive: true });
  // A unique temp name, every byte checked, fsync, rename; the file keeps its mode. A symlink at
  // the name (a repository can plant one in .armature/) is replaced, never written through.
  await atomicWriteFile(file, Buffer.from(`${JSON.stringify(json, null, 2)}\n`, "utf8"), { followLinks: false });
  if (wasTrusted) await trustProject(projectDir, trust);
  return added;
}
