// What a tree writer will create below its target directory, worked out at decision time from
// the data it copies: the names an archive holds (tar, unzip), the files a patch names, the tree
// a recursive copy, sync or move takes along. Relative to each tree-write target of the command.
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { posix } from "node:path";
import picomatch from "picomatch";
import type { ShellSubcommand, ShellTreeWriter } from "../tool/types.js";
import { analysisArgv } from "./index.js";
import { tarEntries, zipEntries, type ArchiveEntry, type ArchiveListing } from "./archive-entries.js";
import { commandFacts } from "./command-facts.js";
import { isDirectory, LINK_WALK_MAX_ENTRIES, walkTree } from "../fs/path-identity.js";
import { patchPlan } from "./tree-patch.js";
import { asWords, hasOption, optionValues, stdinFile, strip, type Locate, type TreePlan } from "./tree-plan.js";

/** Reads the listing of each file a word names (every base the shell may be in), all together. */
function listAll(word: string, locate: Locate, read: (path: string) => ArchiveListing): ArchiveListing {
  const paths = locate(word);
  if (typeof paths === "string") return { unknown: paths };
  const entries: ArchiveEntry[] = [];
  for (const p of paths) {
    if (!existsSync(p)) return { unknown: `${word} does not exist yet, so what it holds is not known before the command runs` };
    const listing = read(p);
    if ("unknown" in listing) return listing;
    entries.push(...listing.entries);
  }
  return { entries };
}

/** A member name as tar compares it: `./` and doubled or trailing slashes do not count. */
function memberName(name: string): string {
  return posix.normalize(name).replace(/^(\.\/)+/, "").replace(/\/+$/, "");
}

/**
 * `--exclude PATTERN` as a test on a name: only the simple patterns (no `/`, no `**`) are
 * honoured, matched against every component (tar and rsync both skip what is below an excluded
 * directory). Anything else excludes nothing here: judging more names than are written is the
 * safe side. When `reincluded` (rsync `--include`/`--filter` may bring back what an exclude
 * drops; tar `--anchored`), nothing is excluded either.
 */
export function exclusions(patterns: readonly string[], reincluded: boolean): (name: string) => boolean {
  // Letters, digits, `._-` and the wildcards `*` `?`: read the same by fnmatch and picomatch (no braces, classes, extglobs).
  const simple = reincluded ? [] : patterns.map((p) => p.replace(/\/+$/, "")).filter((p) => /^[A-Za-z0-9._*?-]+$/.test(p) && !p.includes("**"));
  if (simple.length === 0) return () => false;
  const matchers = simple.map((p) => picomatch(p, { dot: true }));
  return (name) => name.split("/").some((segment) => matchers.some((m) => m(segment)));
}

function tarPlan(argv: readonly string[], sub: ShellSubcommand, locate: Locate): TreePlan {
  const parsed = analysisArgv().tarParse(asWords(argv));
  if (hasOption(parsed, ["-O", "--to-stdout", "--to-command"])) return { entries: [] };
  if (hasOption(parsed, ["--transform"])) return { unknown: "--transform renames what it extracts" };
  if (hasOption(parsed, ["-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script"])) {
    return { unknown: "the archive is read through a program the command names" };
  }
  const strips = optionValues(parsed, ["--strip-components"]);
  const count = strips.length > 0 ? Number(strips[strips.length - 1]) : 0;
  if (!Number.isInteger(count) || count < 0) return { unknown: `--strip-components=${strips[strips.length - 1]} is not a number` };
  let archives = optionValues(parsed, ["-f", "--file"]);
  if (archives.length === 0) archives = ["-"];
  const entries: ArchiveEntry[] = [];
  const ignoreZeros = hasOption(parsed, ["-i", "--ignore-zeros"]);
  for (const a of archives) {
    const file = a === "-" ? stdinFile(sub, "the archive") : a;
    if (typeof file !== "string") return file;
    if (/^[^/]*:/.test(file) && !hasOption(parsed, ["--force-local"])) return { unknown: `${file} names an archive on another host` };
    const listing = listAll(file, locate, (p) => tarEntries(p, ignoreZeros));
    if ("unknown" in listing) return listing;
    entries.push(...listing.entries);
  }
  // Member operands: only those (and what is below them) are extracted; a pattern or a list file selects any.
  const members = parsed.operands.map((o) => memberName(o.word.text));
  const selectAll = members.length === 0 || members.some((m) => m === "." || /[*?[\\]/.test(m)) || hasOption(parsed, ["-T", "--files-from", "--ignore-case"]);
  // Anchored or literal patterns match less than a pattern read against every component: not honoured.
  const skip = exclusions(optionValues(parsed, ["--exclude"]), hasOption(parsed, ["--anchored", "--no-wildcards"]));
  const filtering = !selectAll || optionValues(parsed, ["--exclude"]).length > 0;
  const selected = !filtering ? entries : entries.filter((e) => {
    const n = memberName(e.name);
    return !skip(n) && (selectAll || members.some((m) => n === m || n.startsWith(`${m}/`)));
  });
  const top = optionValues(parsed, ["--one-top-level"]);
  const prefix = top.length > 0 ? top[top.length - 1] || posix.basename(archives[0] ?? "").replace(/\.(tar(\.[a-z0-9]+)?|t[a-z]z|tgz|tbz2?)$/i, "") : "";
  const out: ArchiveEntry[] = [];
  const absolute = hasOption(parsed, ["-P", "--absolute-names"]);
  const place = (name: string): string | null => {
    const rel = absolute ? name : name.replace(/^\/+/, "");
    return prefix && !rel.startsWith("/") ? posix.join(prefix, rel) : rel;
  };
  for (const e of selected) {
    // `./a/.git` with one component stripped is `a/.git`, or `.git` if `.` does not count: both judged.
    for (const name of count === 0 ? [e.name] : new Set([strip(e.name, count), strip(e.name.replace(/^(\.\/)+/, ""), count)])) {
      if (name === null) continue;
      const placed = place(name);
      if (placed === null) continue;
      if (!e.link) out.push({ name: placed });
      else if (!e.link.hard) out.push({ name: placed, link: e.link });
      else {
        // A hard link names another member: stripped like it.
        const target = strip(e.link.target, count) ?? e.link.target;
        out.push({ name: placed, link: { target: place(target) ?? target, hard: true } });
      }
    }
  }
  return { entries: out };
}

function unzipPlan(argv: readonly string[], locate: Locate): TreePlan {
  let archive: string | undefined;
  let junkPaths = false;
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    if (w.startsWith("-") && w.length > 1) {
      const letters = w.slice(1);
      const d = letters.indexOf("d");
      const p = letters.indexOf("P");
      if (letters.slice(0, d === -1 ? undefined : d).includes("j")) junkPaths = true;
      if (d !== -1 && (p === -1 || d < p)) {
        if (letters.slice(d + 1) === "") i++;
      } else if (p !== -1 && p === letters.length - 1) i++;
      if (w === "-x") break; // every later word is an excluded member (judging all entries is the safe side)
      continue;
    }
    if (archive === undefined) archive = w;
  }
  if (archive === undefined) return { entries: [] };
  if (/[*?[]/.test(archive)) return { unknown: `unzip expands ${archive} itself, so which archives it extracts is not known` };
  // unzip tries `NAME`, then `NAME.zip`.
  const paths = locate(archive);
  const word = typeof paths !== "string" && !paths.every((p) => existsSync(p)) && paths.every((p) => existsSync(`${p}.zip`)) ? `${archive}.zip` : archive;
  const listing = listAll(word, locate, zipEntries);
  if ("unknown" in listing) return listing;
  const out: ArchiveEntry[] = [];
  for (const e of listing.entries) {
    // Names written on Windows use `\`, which unzip turns into `/`.
    for (const name of new Set([e.name, e.name.replace(/\\/g, "/")])) {
      out.push({ ...e, name: name.replace(/^\/+/, "") });
      if (junkPaths) out.push({ ...e, name: posix.basename(name) });
    }
  }
  return { entries: out };
}

/** How the copy's names start below the destination for one source word. */
type Prefix = (source: string) => string;

/** Adds what copying one source brings (`followTop`: a link named as the source is followed; `follow`: links below it too). */
function copySourcePlan(source: string, prefix: string, locate: Locate, followTop: boolean, follow: boolean, out: ArchiveEntry[]): string | null {
  const paths = locate(source);
  if (typeof paths === "string") return paths;
  for (const path of paths) {
    let isLink: boolean;
    try {
      isLink = lstatSync(path).isSymbolicLink();
    } catch {
      return `${source} does not exist yet, so what it brings is not known before the command runs`;
    }
    if (isLink && !followTop) {
      out.push({ name: prefix, link: { target: readlinkSync(path), hard: false } });
      continue;
    }
    out.push({ name: prefix });
    const walk = walkTree([path], ({ relative, path: p, entry }) => {
      const name = prefix === "" ? relative : `${prefix}/${relative}`;
      if (!entry.isSymbolicLink()) {
        out.push({ name });
        return;
      }
      if (!follow) {
        out.push({ name, link: { target: readlinkSync(p), hard: false } });
        return;
      }
      out.push({ name });
      try {
        return statSync(p).isDirectory() ? realpathSync(p) : undefined;
      } catch {
        return undefined;
      }
    });
    if (walk.truncated) return `${source} holds more than ${LINK_WALK_MAX_ENTRIES} entries to check`;
  }
  return null;
}

function copyPlan(name: string, argv: readonly string[], locate: Locate, walk: boolean): TreePlan {
  let sources: string[];
  let prefix: Prefix;
  let follow = false;
  let skip: (name: string) => boolean = () => false;
  const base = (s: string): string => posix.basename(s.replace(/\/+$/, "") || "/");
  if (name === "rsync") {
    const parsed = rsyncArgs(argv);
    if (parsed.operands.length < 2) return { entries: [] };
    sources = parsed.operands.slice(0, -1);
    follow = parsed.flags.has("L") || parsed.flags.has("copy-links");
    const relative = parsed.flags.has("R") || parsed.flags.has("relative");
    // `src/` copies what src holds, `src` copies src itself; -R keeps the path (after `/./`).
    prefix = (s) => (relative ? (s.includes("/./") ? s.slice(s.indexOf("/./") + 3) : s).replace(/^\/+/, "") : s.endsWith("/") ? "" : base(s));
    const remote = [...sources, parsed.operands[parsed.operands.length - 1]!].find((s) => /^[^/]*:/.test(s) || s.startsWith("rsync://"));
    if (remote !== undefined) return { unknown: `${remote} is on another host, so what it brings is not known` };
    // Include and filter rules (`-F` reads them from the tree) may bring back what an exclude drops.
    const reincluded = ["include", "include-from", "filter", "f", "F"].some((f) => parsed.flags.has(f));
    skip = exclusions(parsed.excludes, reincluded);
  } else {
    const { getopt, tableFor } = analysisArgv();
    const parsed = getopt(asWords(argv), tableFor(name)!);
    const operands = parsed.operands.map((o) => o.word.text);
    const targetDir = optionValues(parsed, ["-t", "--target-directory"]);
    const dest = targetDir[targetDir.length - 1] ?? operands[operands.length - 1];
    sources = targetDir.length > 0 ? operands : operands.slice(0, -1);
    if (dest === undefined || sources.length === 0) return { entries: [] };
    follow = name === "cp" && hasOption(parsed, ["-L", "--dereference"]);
    const followArgs = follow || (name === "cp" && hasOption(parsed, ["-H"]));
    const parents = name === "cp" && hasOption(parsed, ["--parents"]);
    const destPaths = locate(dest);
    const destIsDir = typeof destPaths !== "string" && destPaths.some((p) => isDirectory(p));
    const intoDest = targetDir.length > 0 || sources.length > 1 || (destIsDir && !hasOption(parsed, ["-T", "--no-target-directory"]));
    // `cp -r x build`: build/x when build is a directory, else build itself becomes the copy.
    prefix = (s) => (parents ? s.replace(/^\/+/, "") : intoDest ? base(s) : "");
    // A file copied, moved or linked into a directory: its name there is all it writes (the source need not exist yet).
    if (!walk) return { entries: sources.map((s) => ({ name: prefix(s) })) };
    if (followArgs && !follow) {
      // -H follows the links named on the command line only.
      const out: ArchiveEntry[] = [];
      for (const s of sources) {
        const why = copySourcePlan(s, prefix(s), locate, true, false, out);
        if (why) return { unknown: why };
      }
      return { entries: out };
    }
  }
  const out: ArchiveEntry[] = [];
  for (const s of sources) {
    const why = copySourcePlan(s, prefix(s), locate, follow, follow, out);
    if (why) return { unknown: why };
  }
  return { entries: out.filter((e) => !skip(e.name)) };
}

/** rsync options that take the next word as their value when written apart. */
const RSYNC_VALUED = new Set(["e", "B", "T", "f", "M"]);
const RSYNC_LONG_VALUED = new Set([
  "rsh", "filter", "exclude", "include", "exclude-from", "include-from", "files-from", "link-dest", "compare-dest", "copy-dest",
  "backup-dir", "suffix", "chmod", "chown", "usermap", "groupmap", "log-file", "log-file-format", "partial-dir", "password-file",
  "port", "timeout", "contimeout", "max-size", "min-size", "max-delete", "bwlimit", "temp-dir", "block-size", "rsync-path",
  "out-format", "compress-choice", "compress-level", "checksum-choice", "skip-compress", "modify-window", "iconv", "sockopts",
  "remote-option", "info", "debug", "outbuf", "write-batch", "only-write-batch", "read-batch", "protocol", "address", "stop-after", "stop-at",
]);

function rsyncArgs(argv: readonly string[]): { flags: Set<string>; operands: string[]; excludes: string[] } {
  const flags = new Set<string>();
  const excludes: string[] = [];
  const operands: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === "--") {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (w.startsWith("--")) {
      const name = w.slice(2).split("=")[0]!;
      flags.add(name);
      const value = w.includes("=") ? w.slice(w.indexOf("=") + 1) : RSYNC_LONG_VALUED.has(name) ? argv[++i] : undefined;
      if (name === "exclude" && value !== undefined) excludes.push(value);
    } else if (w.startsWith("-") && w.length > 1) {
      for (let k = 1; k < w.length; k++) {
        flags.add(w[k]!);
        if (RSYNC_VALUED.has(w[k]!)) {
          if (k === w.length - 1) i++;
          break;
        }
      }
    } else operands.push(w);
  }
  return { flags, operands, excludes };
}

/**
 * What this archive extractor, patch, recursive copy, sync or move creates below its targets.
 * A file that changes while it is read makes it "not known", never an exception.
 */
export function treePlan(sub: ShellSubcommand, kind: ShellTreeWriter["kind"], locate: Locate): TreePlan {
  try {
    return planFor(sub, kind, locate);
  } catch (e) {
    return { unknown: `what it writes could not be read (${e instanceof Error ? e.message : String(e)})` };
  }
}

function planFor(sub: ShellSubcommand, kind: ShellTreeWriter["kind"], locate: Locate): TreePlan {
  const { argv, program: name } = commandFacts(sub);
  switch (name) {
    case "tar":
      return tarPlan(argv, sub, locate);
    case "unzip":
      return unzipPlan(argv, locate);
    case "patch":
      return patchPlan(argv, sub, locate);
    case "cp":
    case "mv":
    case "rsync":
    case "ln":
    case "install":
      return copyPlan(name, argv, locate, kind === "copy");
    default:
      return { unknown: `${name} writes a tree whose names are not known before it runs` };
  }
}
