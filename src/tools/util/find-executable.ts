import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** The first executable `name` on PATH (or `name` itself when it is a path), else undefined. */
export function findExecutable(name: string, path = process.env.PATH ?? ""): string | undefined {
  const candidates = isAbsolute(name) || name.includes("/") ? [name] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
