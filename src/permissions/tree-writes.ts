import { readdirSync } from "node:fs";
import { posix } from "node:path";
import type { ShellSubcommand, ShellTreeWriter } from "../tool/types.js";
import { isInside, type Canonicalize, type PathForms } from "./paths.js";
import { gitDirCreatedBy, protectedNameReason, protectedPathReason } from "./safety.js";
import type { TreePlan } from "../shell/tree-plan.js";

/** The kinds of tree writers (src/shell/tree-writer.ts decides which a command is). */
export type TreeWriter = ShellTreeWriter["kind"];

export function treeWriter(sub: ShellSubcommand): TreeWriter | null {
  return sub.treeWriter?.kind ?? null;
}

/**
 * The directories a tree writer writes trees into, from the analysis's write targets of this
 * one command (undefined when the analysis has none for it). `mv` moves a tree only when a
 * source is a directory (or a word not known before it runs): then only its destination counts.
 */
export function treeWriteTargets(sub: ShellSubcommand, isDirectory: (word: string) => boolean): { kind: TreeWriter; targets: string[] } | null {
  const writer = sub.targets ? sub.treeWriter : undefined;
  if (!writer || !sub.targets) return null;
  if (!writer.move) return { kind: writer.kind, targets: sub.targets.write };
  return { kind: writer.move.sources.some(isDirectory) ? writer.kind : "place", targets: [writer.move.destination] };
}

/**
 * A protected path that a tree writer into this directory may write, or null: a protected entry
 * already in it (`.git`, `.claude`, `.husky`, `.bashrc`…; git never writes into `.git` from a
 * tree), or, for archives, patches and copies, whose names the command line does not show, the
 * directory being a working directory or one above it (a new `.claude/settings.json` there
 * configures the agent). git's work-tree writers are judged by what is there only: they run in
 * the working directory all the time, and write what the repository already tracks.
 */
export function protectedBelow(kind: TreeWriter, forms: readonly PathForms[], workingDirs: readonly string[]): string | null {
  if (kind === "place") return null; // only the names it places are written: judged by treeContentsReason
  for (const dir of new Set(forms.flatMap((f) => [f.lexical, f.canonical]))) {
    if (kind !== "git" && workingDirs.some((w) => isInside(w, dir))) return `${dir} holds the working directory's configuration (.claude/, .git/hooks…)`;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // not a directory (yet): nothing protected below it
    }
    for (const n of names) {
      if (kind === "git" && n.toLowerCase() === ".git") continue;
      const reason = protectedPathReason(n);
      if (reason) return `${posix.join(dir, n)} (${reason})`;
    }
  }
  return null;
}

/** How many times a name is resolved through the links the same tree creates (`a -> b`, `b -> .git`). */
const LINK_HOPS = 8;
/** A name with a git-dir marker among its segments: only those can make a directory act as a git dir. */
const GIT_DIR_NAME = /(^|\/)(head|objects|refs|config|packed-refs|commondir)(\/|$)/i;

/**
 * Why the names a tree writer creates below `dest` (see tree-contents.ts) need approval, or
 * null: a name that is a protected path (at any depth, by the names alone: `a/.git/hooks/x`,
 * `.husky/pre-commit`), that leads outside `dest` (`../x`, an absolute name, a link on disk),
 * a link that points outside `dest` or into a protected path (later names are resolved through
 * the links the same tree creates), or names that together make a directory act as a git dir.
 */
export function treeContentsReason(plan: TreePlan, dest: readonly PathForms[], canonicalize: Canonicalize): string | null {
  if ("unknown" in plan) return plan.unknown;
  // Links the tree itself creates, by their name below dest: where they lead (below dest, or absolute).
  const links = new Map<string, string>();
  for (const e of plan.entries) {
    if (!e.link) continue;
    const name = posix.normalize(e.name).replace(/\/+$/, "");
    const target = e.link.hard || e.link.target.startsWith("/") ? e.link.target : posix.join(posix.dirname(name), e.link.target);
    links.set(name, posix.normalize(target));
  }
  /** A name below dest with the tree's own links replaced by where they lead. */
  const throughLinks = (name: string): string => {
    let out = name;
    for (let hop = 0; hop < LINK_HOPS && links.size > 0 && !out.startsWith("/") && !out.startsWith("../"); hop++) {
      const segments = out.split("/");
      let replaced = false;
      for (let k = segments.length - 1; k > 0 && !replaced; k--) {
        const target = links.get(segments.slice(0, k).join("/"));
        if (target !== undefined) {
          out = posix.normalize(posix.join(target, ...segments.slice(k)));
          replaced = true;
        }
      }
      if (!replaced) break;
    }
    return out;
  };
  for (const form of new Set(dest.flatMap((f) => [f.lexical, f.canonical]))) {
    const written: string[] = [];
    // The real directory of each parent below dest ("" when it is where its name says).
    const parents = new Map<string, string>();
    // The target itself was judged as a write: its last segment is enough for names that span both (`.github` + `workflows/x`).
    const formBase = posix.basename(form);
    let realForm: string | undefined;
    const judge = (name: string, what: string): string | null => {
      if (name === ".." || name.startsWith("../")) return `${what} leads outside ${form}`;
      if (name.startsWith("/") && !isInside(name, form)) return `${what} is an absolute name outside ${form}`;
      const rel = name.startsWith("/") ? name.slice(form.length + 1) : name;
      const reason = protectedNameReason(`${formBase}/${rel}`);
      if (reason) return `${what} would be written as ${posix.join(form, rel)}, and ${reason}`;
      // An existing symlink below dest takes the write where it leads.
      const slash = rel.lastIndexOf("/");
      const dirRel = slash === -1 ? "" : rel.slice(0, slash);
      let real = parents.get(dirRel);
      if (real === undefined) {
        const dir = dirRel === "" ? form : `${form}/${dirRel}`;
        const canonical = canonicalize(dir);
        parents.set(dirRel, (real = canonical === dir ? "" : canonical));
      }
      if (real !== "") {
        const target = posix.join(real, rel.slice(slash + 1));
        const through = protectedNameReason(target);
        if (through) return `${what} would be written through a symlink to ${target}, and ${through}`;
        realForm ??= canonicalize(form);
        if (!isInside(target, realForm) && !isInside(target, form)) return `${what} would be written through a symlink to ${target}, outside ${form}`;
      }
      if (GIT_DIR_NAME.test(rel)) written.push(`${real || (dirRel === "" ? form : `${form}/${dirRel}`)}/${rel.slice(slash + 1)}`);
      return null;
    };
    for (const e of plan.entries) {
      const name = posix.normalize(e.name).replace(/\/+$/, "");
      if (name === "." || name === "") continue;
      const why = judge(name, `the entry ${e.name}`) ?? (links.size > 0 ? judge(throughLinks(name), `the entry ${e.name} (through the links the tree creates)`) : null);
      if (why) return why;
      if (!e.link) continue;
      const kind = e.link.hard ? "hard link" : "symlink";
      const target = links.get(name) ?? e.link.target;
      const landing = throughLinks(target);
      if (landing.startsWith("/") ? !isInside(landing, form) : landing === ".." || landing.startsWith("../")) {
        return `the ${kind} ${e.name} points to ${e.link.target}, outside ${form}`;
      }
      const full = landing.startsWith("/") ? landing : posix.join(form, landing);
      const reason = protectedNameReason(full);
      if (reason) return `the ${kind} ${e.name} points to ${full}, and ${reason}`;
    }
    const gitDir = gitDirCreatedBy(written);
    if (gitDir) return gitDir;
  }
  return null;
}
