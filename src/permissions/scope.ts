import type { ShellCommandFacts, ShellRepositoryReads, ShellSubcommand } from "../tool/types.js";
import { urlHost } from "./domain-rules.js";
import {
  defaultHome,
  insideWorkingDirs,
  expandHome,
  isUnresolvable,
  memoCanonicalize,
  pathForms,
  realCanonicalize,
  toPosix,
  workingDirs,
  type Canonicalize,
  type PathForms,
  type WorkingDirs,
} from "./paths.js";
import { derivedShellReads } from "./shell-reads.js";
import { isDirectory, procPath, walkLinks, LINK_WALK_MAX_ENTRIES } from "../fs/path-identity.js";
import { expandGlob } from "../shell/glob-expand.js";
import { hasBrace, hasGlob, isDynamicWord, isStaticWord, localeLiteral } from "../shell/shared.js";
import { callTextFacts, commandFacts } from "../shell/command-facts.js";
import { repositoryTop } from "../shell/git-repo.js";
import type { RootLimit } from "./read-narrowing.js";
import { treeWriteTargets, type TreeWriter } from "./tree-writes.js";
import type { PermissionRequest } from "./types.js";

export interface ResolveOptions {
  /** Home directory for `~/` anchors and `~` in commands (default: the user's). */
  home?: string;
  /** How paths are canonicalised (default: `realCanonicalize`, which follows dangling symlinks too). */
  canonicalize?: Canonicalize;
}

/** A path a call touches, by every name it may go by (a relative shell target after a `cd` has several). */
export interface Target {
  written: string;
  forms: PathForms[];
  /** Not knowable before it runs (`$VAR`, `$(…)`, a glob, `{a,b}`, `~user`): never auto-approved. */
  unknown: boolean;
  /** For a recursive read: what its readers read below it (`all` when absent). */
  limit?: RootLimit;
}

/** What a call touches, worked out once per decision. */
export interface Scope {
  request: PermissionRequest;
  home: string;
  dirs: WorkingDirs;
  canonicalize: Canonicalize;
  shell?: ShellCommandFacts;
  reads: Target[];
  writes: Target[];
  cds: Target[];
  /** Directories a shell command reads with everything below them (`grep -r`, `find`, `tar c`). */
  recursiveReads: Target[];
  /** Directories a shell command writes whole trees into (`git checkout .`, `tar -x -C dir`), by kind. */
  treeWrites: Array<Target & { kind: TreeWriter; sub: ShellSubcommand }>;
  /** Where a relative shell path may land: the cwd and every static `cd` target. */
  bases: string[];
  /** A `cd` moved to a directory the text does not name: relative paths are unknown. */
  cdUnknown: boolean;
  /** The command uses `$"…"`, which the analysis reads as `$…`: deny rules also see the literal. */
  localeQuoted: boolean;
  /** For a URL subject: the parsed host, or null when it does not parse as http(s). */
  host?: string | null;
}

const HARMLESS_WRITES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"]);

/**
 * The scope as a class: a getter on the prototype keeps the object's shape fast, where an
 * object literal with an accessor is built the slow way on every decision.
 */
class CallScope implements Scope {
  reads: Target[] = [];
  writes: Target[] = [];
  cds: Target[] = [];
  recursiveReads: Target[] = [];
  readonly treeWrites: Scope["treeWrites"] = [];
  readonly bases: string[];
  cdUnknown = false;
  localeQuoted = false;
  shell?: ShellCommandFacts;
  host?: string | null;
  private workingDirs: WorkingDirs | undefined;

  constructor(
    readonly request: PermissionRequest,
    readonly home: string,
    readonly canonicalize: Canonicalize,
  ) {
    this.bases = [request.cwd];
  }

  /**
   * The session's working directories: where it started (`projectDir`, which a `cd` does not
   * move) and the additional ones. Canonical names cost a realpath each: worked out only for a
   * call that has targets.
   */
  get dirs(): WorkingDirs {
    return (this.workingDirs ??= workingDirs(this.request.projectDir, this.request.permissionContext.additionalDirectories, this.canonicalize));
  }
}

/** A file subject's own canonical names (resolved by the tool, see PermissionSubject) win over resolving again. */
function pinCanonical(
  subject: NonNullable<PermissionRequest["subject"]>,
  canonicalize: (p: string, parent: Canonicalize) => string,
): (p: string, parent: Canonicalize) => string {
  if (subject.kind !== "file" || subject.canonical === undefined) return canonicalize;
  const pinned = new Map<string, string>();
  subject.paths.forEach((p, i) => {
    const c = subject.canonical![i];
    if (c !== undefined) pinned.set(p, c);
  });
  return (path, parent) => pinned.get(path) ?? canonicalize(path, parent);
}

export function buildScope(request: PermissionRequest, options: ResolveOptions = {}): Scope {
  const home = options.home ?? defaultHome();
  const subject = request.subject;
  // Only a call with paths needs the (memoised) canonicaliser's state.
  const canonicalize = subject === undefined ? (options.canonicalize ?? realCanonicalize) : memoCanonicalize(pinCanonical(subject, options.canonicalize ?? realCanonicalize));
  const cwd = request.cwd;
  const scope = new CallScope(request, home, canonicalize);
  const target = (written: string, bases: string[]): Target => {
    const forms = bases.map((b) => pathForms(written, b, home, canonicalize));
    // A symlink loop (or a chain too deep to follow) lands nowhere knowable.
    const unknown = !isStaticWord(written) || forms.some((f) => isUnresolvable(f.canonical));
    if (unknown && scope.localeQuoted) {
      // `$"x"` is `x` in the C locale: match that too (a deny matches any form, an allow needs all).
      const literal = localeLiteral(written, true);
      if (literal !== written && isStaticWord(literal)) forms.push(...bases.map((b) => pathForms(literal, b, home, canonicalize)));
    }
    return { written, unknown, forms };
  };
  if (subject?.kind === "file") {
    const list = subject.paths.map((p) => target(p, [cwd]));
    if (subject.access === "write") scope.writes = list;
    else scope.reads = list;
  } else if (subject?.kind === "url") {
    scope.host = urlHost(subject.url);
  } else if (subject?.kind === "shell") {
    // A shell path names what the shell's process sees: /proc/self is the shell, not the engine.
    const plainTarget = target;
    /** `literal`: the word is a glob's match (or its unmatched text), not to be expanded again. */
    const shellTarget = (written: string, bases: string[], literal = false): Target | null => {
      const forms: PathForms[] = [];
      let unknown = false;
      let judged = false;
      for (const b of bases) {
        // Not normalised first: `/proc/self/cwd/..` is the parent of the shell's cwd, not /proc/self.
        const word = toPosix(expandHome(written, home));
        const p = procPath(word.startsWith("/") ? word : `${b.replace(/\/+$/, "")}/${word}`);
        if (p.kind === "plain") continue;
        judged = true;
        if (p.kind === "alias") forms.push(pathForms(p.path, b, home, canonicalize));
        else if (p.kind === "unknown") unknown = true;
      }
      if (!judged) {
        const t = plainTarget(written, bases);
        if (literal) t.unknown = t.forms.some((f) => isUnresolvable(f.canonical));
        return t;
      }
      if (unknown) return { written, unknown: true, forms: forms.length > 0 ? forms : bases.map((b) => pathForms(written, b, home, canonicalize)) };
      // Descriptors the command opened are judged through the redirection that opened them.
      if (forms.length === 0) return null;
      return { written, unknown: !literal && !isStaticWord(written), forms };
    };
    const facts = subject.facts;
    scope.shell = facts;
    const callText = callTextFacts(facts);
    scope.localeQuoted = callText.localeQuoted;
    scope.cds = facts.cdTargets.filter((t) => t !== "-" && t !== "").map((t) => shellTarget(t, [cwd])).filter((t): t is Target => t !== null);
    // After `cd X`, a relative target may be relative to X: check it against every place it may land.
    const bases = scope.bases;
    for (const cd of scope.cds) if (!cd.unknown) bases.push(...cd.forms.map((f) => f.lexical));
    // `popd`, `cd -` and a CDPATH lookup move to a directory the text does not name.
    const cdUnknown = (scope.cdUnknown =
      scope.cds.some((c) => c.unknown) ||
      facts.cdTargets.includes("-") ||
      facts.subcommands.some((s) => {
        const { program, cdFromStack } = commandFacts(s);
        return cdFromStack || ((program === "cd" || program === "pushd") && "CDPATH" in s.env);
      }));
    const relTarget = (t: string): Target | null => {
      const out = shellTarget(t, bases);
      if (out && cdUnknown && !t.startsWith("/") && !t.startsWith("~")) out.unknown = true;
      return out;
    };
    const relTargets = (words: Iterable<string>): Target[] => [...words].map(relTarget).filter((t): t is Target => t !== null);
    // Pathname expansion with bash's default options, now: `ls *.ts` reads what `*.ts` matches.
    // Not when the command may change those options (shopt, GLOBIGNORE) or its directory is unknown.
    const expandable = !cdUnknown && !callText.globOptionsMayChange;
    const expandedReads = (words: Iterable<string>): Target[] => {
      const out: Target[] = [];
      for (const word of words) {
        const producer = !cdUnknown && facts.producers && Object.hasOwn(facts.producers, word) ? facts.producers[word] : undefined;
        if (producer) {
          // `wc -l $(git ls-files)`, `git ls-files | xargs wc -l`: the names the producer printed
          // when the call was checked (the Bash tool runs it, once per call).
          const names = subject.produced && Object.hasOwn(subject.produced, word) ? subject.produced[word] : undefined;
          if (names && !("unknown" in names)) out.push(...relTargets(names));
          else out.push({ written: `${word} (${names?.unknown ?? "it was not run for this decision"})`, unknown: true, forms: bases.map((b) => pathForms(word, b, home, canonicalize)) });
          continue;
        }
        const glob = hasGlob(word) && !isDynamicWord(word) && !hasBrace(word) && !word.includes("\0");
        if (!glob || !expandable) {
          const t = relTarget(word);
          if (t) out.push(t);
          continue;
        }
        const expanded: Target[] = [];
        let known = true;
        for (const base of bases) {
          const e = expandGlob(toPosix(expandHome(word, home)), base);
          if (e.kind === "unknown") {
            known = false;
            break;
          }
          for (const p of e.paths) {
            const t = shellTarget(p, [base], true);
            if (t) expanded.push(t);
          }
        }
        if (known) out.push(...expanded);
        else {
          const t = relTarget(word);
          if (t) out.push(t);
        }
      }
      return out;
    };
    /**
     * A glob where the command reads options: a match beginning with `-` or `@` reaches the
     * command as an option or a response file (`grep -n x *` with a file named `-r`), whose
     * effect the analysis did not judge. Such a match, or a glob not expandable now, is a read
     * not known before the command runs.
     */
    const optionMatches = (sub: ShellSubcommand, glob: string): Target[] => {
      const name = commandFacts(sub).writtenName ?? "the command";
      const unknown = (written: string): Target => ({ written, unknown: true, forms: bases.map((b) => pathForms(glob, b, home, canonicalize)) });
      if (!expandable) return [unknown(`${glob} (its matches reach ${name} where it reads options)`)];
      const out: Target[] = [];
      for (const base of bases) {
        const e = expandGlob(toPosix(glob), base);
        if (e.kind === "unknown") return [unknown(`${glob} (${e.why}; its matches reach ${name} where it reads options)`)];
        for (const p of e.paths) if (p !== glob && /^[-@]/.test(p)) out.push(unknown(`${p} (a name ${glob} matches, which ${name} reads as an option or a response file)`));
      }
      return out;
    };
    scope.writes = relTargets(facts.writeTargets.filter((t) => !HARMLESS_WRITES.has(t)));
    const mayBeDirectory = (word: string): boolean => {
      const t = relTarget(word);
      return !t || t.unknown || t.forms.some((f) => isDirectory(f.canonical));
    };
    for (const sub of facts.subcommands) {
      const tree = treeWriteTargets(sub, mayBeDirectory);
      if (tree) for (const t of relTargets(tree.targets)) scope.treeWrites.push({ ...t, kind: tree.kind, sub });
    }
    const derived = derivedShellReads(facts.subcommands);
    if (facts.loopVariables) {
      // `for d in src docs; do ls "$d"; done` lists src and docs.
      const loops = facts.loopVariables;
      const each = (words: string[]): string[] => words.flatMap((w) => substituteVariables(w, loops));
      derived.reads = each(derived.reads);
      derived.recursiveRoots = each(derived.recursiveRoots);
      derived.followingRoots = each(derived.followingRoots);
    }
    const readWords = new Set([...facts.readTargets, ...derived.reads, ...derived.recursiveRoots]);
    readWords.delete("-");
    readWords.delete("/dev/null");
    scope.reads = expandedReads(readWords);
    for (const sub of facts.subcommands) for (const glob of sub.optionGlobs ?? []) scope.reads.push(...optionMatches(sub, glob));
    scope.recursiveReads = [];
    for (const root of new Set(derived.recursiveRoots)) {
      const limit = derived.rootLimits.get(root) ?? "all";
      for (const t of expandedReads([root])) scope.recursiveReads.push(limit === "all" ? t : { ...t, limit });
    }
    if (derived.followingRoots.length > 0) followLinks(scope, relTargets(new Set(derived.followingRoots)));
    for (const sub of facts.subcommands) {
      const top = commandFacts(sub).repositoryReads;
      if (top) addRepositoryReads(scope, top, sub.reader?.limit ?? "all");
    }
  }
  return scope;
}

/**
 * What git reads from the top of its work tree, placed there: in a subdirectory of the repository
 * `git show HEAD:secrets/key` reads `<top>/secrets/key` and `git log -p` prints the whole
 * repository. Objects are reads (a Read rule or the working directories judge them); trees are
 * recursive reads, which Read rules judge. Where git's directory is the top, the reads placed from
 * the shell's directory already say this; outside a repository git reads nothing.
 */
function addRepositoryReads(scope: CallScope, r: Readonly<ShellRepositoryReads>, limit: RootLimit): void {
  const where = r.workTree ?? r.dir;
  const known = !scope.cdUnknown && isStaticWord(where) && [...r.files, ...r.trees].every(isStaticWord);
  const place = (path: string, top: string): Target => {
    const forms = pathForms(path, top, scope.home, scope.canonicalize);
    return { written: known ? forms.lexical : path, unknown: !known, forms: [forms] };
  };
  for (const base of scope.bases) {
    const dir = pathForms(where, base, scope.home, scope.canonicalize).canonical;
    const top = r.workTree !== null ? dir : repositoryTop(dir);
    if (top === undefined || (known && top === dir)) continue;
    for (const f of r.files) scope.reads.push(place(f, top));
    for (const t of r.trees) scope.recursiveReads.push(limit === "all" ? place(t, top) : { ...place(t, top), limit });
  }
}

/**
 * A recursive reader that follows symlinks reads where the links below its roots lead: each
 * target is a read (a directory one a recursive read). Past the walk's bound, what lies below
 * is not known.
 */
function followLinks(scope: CallScope, roots: readonly Target[]): void {
  const known = roots.filter((r) => !r.unknown);
  const walk = walkLinks([...new Set(known.flatMap((r) => r.forms.map((f) => f.canonical)))], scope.canonicalize);
  const asTarget = (path: string): Target => ({ written: path, unknown: false, forms: [{ lexical: path, canonical: path }] });
  for (const t of walk.targets) scope.reads.push(asTarget(t));
  for (const d of walk.directories) scope.recursiveReads.push(asTarget(d));
  if (walk.truncated) {
    for (const r of known) {
      scope.reads.push({ written: `${r.written} (symlinks below it: more than ${LINK_WALK_MAX_ENTRIES} entries to check)`, unknown: true, forms: r.forms });
    }
  }
}

/** A word naming only the given variables (`$d/x`, `${d}`) as each of their values; else itself. */
function substituteVariables(word: string, values: Readonly<Record<string, string[]>>): string[] {
  if (!word.includes("$")) return [word];
  let out = [word];
  for (const m of word.matchAll(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g)) {
    const list = values[(m[1] ?? m[2]) as string];
    if (!list) return [word];
    out = [...new Set(out.flatMap((w) => list.map((v) => w.split(m[0]).join(v))))];
    if (out.length > 64) return [word];
  }
  return out.some((w) => /\$[A-Za-z_{]/.test(w)) ? [word] : out;
}

/** Targets (or cd targets) that fall outside the working directories or cannot be known. */
export function outsideTargets(scope: Scope, targets: readonly Target[]): Target[] {
  return targets.filter((t) => t.unknown || t.forms.some((f) => !insideWorkingDirs(f, scope.dirs)));
}

/** Where a file a command reads is, for each directory the shell may be in, or why it is not known. */
export function locateWord(scope: Scope, word: string): string[] | string {
  if (!isStaticWord(word)) return `${word} is not known before the command runs`;
  const absolute = word.startsWith("/") || word.startsWith("~/");
  if (!absolute && scope.cdUnknown) return `${word} is relative to a directory not known before the command runs`;
  return [...new Set((absolute ? [scope.request.cwd] : scope.bases).map((b) => pathForms(word, b, scope.home, scope.canonicalize).lexical))];
}
