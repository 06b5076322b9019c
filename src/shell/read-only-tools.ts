// Read-only invocations of developer tools (runtimes, package managers, containers, network
// listings, archive listings), as data: exact version queries, and per subcommand an allowlist
// of options with their shape. Anything else (another subcommand, an option not listed, an
// abbreviation, a word that is not static) is not read-only: `npm run`, `pip install`,
// `docker exec`, `kubectl apply`, `python3 -c`, `node -e` all ask.
import type { Word } from "./words.js";

/** `flag`: no value; `value`: attached (`-n5`, `--tail=5`) or the next word; `optional`: attached, or the next word unless it starts with `-`. */
type Shape = "flag" | "value" | "optional";

interface Verb {
  /** Options by name as written (`-a`, `--all`; go style: `-json`). */
  options?: Readonly<Record<string, Shape>>;
  /** Operands allowed (package names, container names, paths read); default yes. */
  operands?: boolean;
  /** A further check of the parsed options (values), returning why not. */
  check?: (options: ReadonlyMap<string, string | undefined>) => string | undefined;
  /** A check of the operands, returning why not. */
  operandCheck?: (operands: readonly string[]) => string | undefined;
}

interface ToolSpec {
  /** Exact one-argument invocations that print the version. */
  versions?: readonly string[];
  /** Read-only subcommands: `ls`, `config get`, `compose ps`; `""` for the tool itself. */
  verbs?: Readonly<Record<string, Verb>>;
  /** `go`: options are `-name`/`--name` with `=value`, no short clusters. */
  style?: "go";
}

const flags = (...names: string[]): Record<string, Shape> => Object.fromEntries(names.map((n) => [n, "flag" as Shape]));
const values = (...names: string[]): Record<string, Shape> => Object.fromEntries(names.map((n) => [n, "value" as Shape]));

const VERSION = ["--version", "-v"];
/**
 * `npm view SPEC [FIELD…]` asks the registry about a package name (`react`, `@types/node@18`).
 * A URL, a git or file spec, or a path (`npm view /dir`) makes npm fetch that URL or read that
 * folder's package.json instead: not a lookup of a name.
 */
const npmPackageSpecs = (operands: readonly string[]): string | undefined => {
  const spec = operands[0];
  if (spec === undefined) return undefined;
  const name = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[\w.^~<>=| -]*)?$/i;
  return name.test(spec) && !/^(\.|~)/.test(spec) ? undefined : `npm view ${spec}: not a package name (a URL, a git or file spec or a path is fetched or read)`;
};
const NPM_LS: Verb = { options: { ...flags("-a", "--all", "--json", "-l", "--long", "-p", "--parseable", "-g", "--global", "--link"), ...values("--depth", "--omit", "--include") } };
const PIP: ToolSpec = {
  versions: ["--version", "-V"],
  verbs: {
    // --outdated/--uptodate ask the package index (the network, configured by the project's pip.conf).
    list: { options: { ...flags("-e", "--editable", "-l", "--local", "--user", "--not-required", "--exclude-editable", "--include-editable"), ...values("--format") } },
    show: { options: flags("-f", "--files") },
    freeze: { options: flags("-l", "--local", "--user", "--all", "--exclude-editable") },
  },
};
const PNPM_LS: Verb = { options: { ...flags("--json", "--long", "--parseable", "-r", "--recursive", "-P", "--prod", "-D", "--dev", "-g", "--global"), ...values("--depth") } };

/** gzip/gunzip that list, test, or write to standard output only (`gzip -dc f.gz`, `gunzip -c f.gz`). */
const GZIP_READ: Verb = {
  options: flags("-l", "--list", "-t", "--test", "-c", "--stdout", "--to-stdout", "-d", "--decompress", "--uncompress", "-f", "--force", "-v", "--verbose", "-q", "--quiet"),
  check: (o) => (["-l", "--list", "-t", "--test", "-c", "--stdout", "--to-stdout"].some((k) => o.has(k)) ? undefined : "gzip without --stdout, --list or --test replaces files"),
};

const DOCKER_FORMAT = values("--format", "-f", "--filter");

/**
 * gh's listing and viewing subcommands: they ask the GitHub host the user is logged in to (the
 * repository from the git remotes, or `-R OWNER/REPO`: a repository, never another host), print
 * and change nothing. `--web` (a browser), `gh api` (any method), downloads and checkouts are
 * not here. gh runs git to read the remotes: the repository's configured programs are looked at
 * (project-programs.ts).
 */
const GH_OUT = values("--json", "-q", "--jq", "-t", "--template");
const GH_REPO = values("-R", "--repo");
const ghRepoCheck = (o: ReadonlyMap<string, string | undefined>): string | undefined => {
  const repo = o.get("-R") ?? o.get("--repo");
  return repo === undefined || /^[\w.-]+\/[\w.-]+$/.test(repo) ? undefined : `gh --repo ${repo}: not OWNER/REPO (a host is named)`;
};
const ghVerb = (options: Record<string, Shape>): Verb => ({ options: { ...GH_OUT, ...GH_REPO, ...options }, check: ghRepoCheck });
const GH_LIST = values("-L", "--limit", "-s", "--state", "-A", "--author", "-a", "--assignee", "-l", "--label", "-S", "--search");

const TOOLS: Record<string, ToolSpec> = {
  node: { versions: VERSION },
  npm: {
    versions: VERSION,
    verbs: {
      ls: NPM_LS,
      list: NPM_LS,
      outdated: { options: flags("--json", "--long", "-l", "--all", "-a", "-g", "--global", "--parseable", "-p") },
      view: { options: flags("--json"), operandCheck: npmPackageSpecs },
      info: { options: flags("--json"), operandCheck: npmPackageSpecs },
      "config get": { options: flags("--json") },
    },
  },
  pnpm: { versions: VERSION, verbs: { ls: PNPM_LS, list: PNPM_LS } },
  yarn: { versions: VERSION, verbs: { list: { options: { ...flags("--json"), ...values("--depth", "--pattern") } } } },
  gh: {
    versions: ["--version"],
    verbs: {
      "pr list": ghVerb({ ...GH_LIST, ...values("-B", "--base", "-H", "--head", "--app"), ...flags("-d", "--draft") }),
      "pr view": ghVerb(flags("-c", "--comments")),
      "pr checks": ghVerb(flags("--required")),
      "pr diff": ghVerb({ ...flags("--name-only", "--patch"), ...values("--color") }),
      "pr status": ghVerb(flags("-c", "--conflict-status")),
      "issue list": ghVerb({ ...GH_LIST, ...values("-m", "--milestone", "--mention", "--app") }),
      "issue view": ghVerb(flags("-c", "--comments")),
      "issue status": ghVerb({}),
      "run list": ghVerb({ ...values("-L", "--limit", "-w", "--workflow", "-b", "--branch", "-s", "--status", "-u", "--user", "-e", "--event", "-c", "--commit", "--created"), ...flags("-a", "--all") }),
      "run view": ghVerb({ ...flags("--log", "--log-failed", "-v", "--verbose", "--exit-status"), ...values("-j", "--job", "-a", "--attempt") }),
      "repo view": { options: { ...GH_OUT, ...values("-b", "--branch") } },
      "release list": ghVerb({ ...values("-L", "--limit", "-O", "--order"), ...flags("--exclude-drafts", "--exclude-pre-releases") }),
      "release view": ghVerb({}),
      "workflow list": ghVerb({ ...values("-L", "--limit"), ...flags("-a", "--all") }),
      "label list": ghVerb({ ...values("-L", "--limit", "-S", "--search", "--sort", "--order") }),
    },
  },
  python: { versions: ["--version", "-V", "-VV"] },
  python3: { versions: ["--version", "-V", "-VV"] },
  pip: PIP,
  pip3: PIP,
  cargo: { versions: ["--version", "-V"] },
  rustc: { versions: ["--version", "-V"] },
  go: {
    style: "go",
    verbs: {
      version: { operands: false },
      env: { options: flags("-json") },
      list: { options: { ...flags("-m", "-json", "-e", "-deps", "-test", "-find"), ...values("-f") } },
    },
  },
  docker: {
    versions: ["--version", "-v"],
    verbs: {
      version: { operands: false, options: values("--format", "-f") },
      ps: { operands: false, options: { ...flags("-a", "--all", "-q", "--quiet", "-l", "--latest", "-s", "--size", "--no-trunc"), ...values("-n", "--last"), ...DOCKER_FORMAT } },
      images: { options: { ...flags("-a", "--all", "-q", "--quiet", "--digests", "--no-trunc"), ...DOCKER_FORMAT } },
      logs: { options: { ...flags("-f", "--follow", "-t", "--timestamps", "--details"), ...values("--tail", "-n", "--since", "--until") } },
      inspect: { options: { ...flags("-s", "--size"), ...values("-f", "--format", "--type") } },
      "compose ps": { options: { ...flags("-a", "--all", "-q", "--quiet", "--services"), ...values("--format", "--status", "--filter") } },
    },
  },
  kubectl: {
    verbs: {
      // get/describe/logs reach the cluster, and a kubeconfig user's `exec` plugin runs a program: not read-only.
      "config current-context": { operands: false },
      "config get-contexts": { options: { ...flags("--no-headers"), ...values("-o", "--output") } },
    },
  },
  zcat: { verbs: { "": { options: flags("-f", "--force", "-q", "--quiet", "-v", "--verbose") } } },
  bzcat: { verbs: { "": { options: flags("-s", "--small", "-q", "--quiet", "-v", "--verbose") } } },
  xzcat: { verbs: { "": { options: flags("-f", "--force", "-q", "--quiet", "-v", "--verbose", "--single-stream") } } },
  gzip: { verbs: { "": GZIP_READ } },
  gunzip: { verbs: { "": GZIP_READ } },
  unzip: {
    verbs: {
      "": {
        // List, verbose list, test, zipinfo mode: nothing is extracted.
        options: flags("-l", "-v", "-t", "-q", "-Z", "-1", "-p", "-c"),
        check: (o) => (["-l", "-v", "-t", "-Z", "-p", "-c"].some((k) => o.has(k)) ? undefined : "unzip without -l/-v/-t/-Z/-p/-c extracts files"),
      },
    },
  },
  lsof: { verbs: { "": { options: { ...flags("-n", "-P", "-t", "-l", "-a"), "-i": "optional", ...values("-p", "-u", "-c") } } } },
  ss: {
    verbs: {
      "": {
        options: flags(
          "-l", "-t", "-u", "-n", "-p", "-a", "-x", "-w", "-4", "-6", "-s", "-e", "-m", "-o", "-i", "-H", "-r", "--listening", "--tcp",
          "--udp", "--numeric", "--processes", "--all", "--summary", "--extended", "--memory", "--options", "--info", "--no-header", "--resolve",
        ),
      },
    },
  },
  netstat: {
    verbs: {
      "": {
        operands: false,
        options: flags(
          "-t", "-u", "-l", "-n", "-p", "-a", "-r", "-i", "-s", "-e", "-W", "-x", "-w", "--tcp", "--udp", "--listening", "--numeric",
          "--programs", "--all", "--route", "--interfaces", "--statistics", "--extend", "--wide",
        ),
      },
    },
  },
};

/** Returns undefined when this invocation only reads, else why not. */
function toolObjection(name: string, spec: ToolSpec, words: Word[]): string | undefined {
  const dynamic = words.find((w) => !w.isStatic);
  if (dynamic) return `${name} argument ${dynamic.raw} is not static`;
  const args = words.slice(1).map((w) => w.text);
  if (args.length === 1 && spec.versions?.includes(args[0] as string)) return undefined;
  const verbs = spec.verbs ?? {};
  // The longest subcommand path that the words start with.
  let verbName: string | undefined;
  let used = 0;
  for (const key of Object.keys(verbs)) {
    const parts = key === "" ? [] : key.split(" ");
    if (parts.every((p, i) => args[i] === p) && (verbName === undefined || parts.length > used)) {
      verbName = key;
      used = parts.length;
    }
  }
  if (verbName === undefined) return `${name} ${args[0] ?? ""} is not known to be read-only`.trimEnd();
  const verb = verbs[verbName] as Verb;
  const label = `${name}${verbName === "" ? "" : ` ${verbName}`}`;
  const options = new Map<string, string | undefined>();
  const operands: string[] = [];
  const shapes = verb.options ?? {};
  const shape = (n: string): Shape | undefined => (Object.hasOwn(shapes, n) ? shapes[n] : undefined);
  for (let i = used; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith("-") || a === "-") {
      operands.push(a);
      continue;
    }
    const takeNext = (s: Shape): string | undefined => {
      const next = args[i + 1];
      if (s === "value" || (s === "optional" && next !== undefined && !next.startsWith("-"))) {
        i++;
        return next ?? "";
      }
      return undefined;
    };
    if (a.startsWith("--") || spec.style === "go") {
      const eq = a.indexOf("=");
      const n = eq === -1 ? a : a.slice(0, eq);
      const s = shape(n);
      if (s === undefined) return `${label} option ${n} is not known to be read-only`;
      if (s === "flag" && eq !== -1) return `${label} option ${n} takes no value`;
      options.set(n, eq !== -1 ? a.slice(eq + 1) : takeNext(s));
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const n = `-${a[k] as string}`;
      const s = shape(n);
      if (s === undefined) return `${label} option ${n} is not known to be read-only`;
      if (s !== "flag") {
        options.set(n, k + 1 < a.length ? a.slice(k + 1) : takeNext(s));
        break;
      }
      options.set(n, undefined);
    }
  }
  if (verb.operands === false && operands.length > 0) return `${label} takes no operands here`;
  return verb.check?.(options) ?? verb.operandCheck?.(operands);
}

/** Checkers for the tools above, by command name (merged into read-only.ts's). */
export const TOOL_CHECKERS: Record<string, (words: Word[]) => string | undefined> = Object.fromEntries(
  Object.entries(TOOLS).map(([name, spec]) => [name, (words: Word[]) => toolObjection(name, spec, words)]),
);

/** Whether `words` is one of the read-only invocations above (then the analysis sees all it does). */
export function isReadOnlyToolInvocation(words: Word[]): boolean {
  const name = words[0]?.text ?? "";
  return Object.hasOwn(TOOLS, name) && toolObjection(name, TOOLS[name] as ToolSpec, words) === undefined;
}
