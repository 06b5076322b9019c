// What deny and ask rules see of a command besides its text: the command with the global
// options before its subcommand removed, read by the command's own global-option table
// (`git -C . push` is `git push`, `kubectl --context x delete` is `kubectl delete`), and
// whether the analysis models the command at all (an unmodelled one may run any later word).
import { GIT_GLOBAL, tableFor, type CommandTable } from "./commands/index.js";
import { getopt } from "./getopt.js";
import { gitConfigOverrides } from "./git-argv.js";
import { hasReadOnlyModel } from "./read-only.js";
import { hasTargetModel } from "./targets.js";
import { commandBaseName } from "./wrappers.js";
import type { Word } from "./words.js";

/**
 * Global options (before the subcommand) of tools whose rules are written per subcommand.
 * Partial: an option not listed may still take the next word; both readings are kept.
 */
const GLOBALS: Record<string, CommandTable> = {
  git: GIT_GLOBAL,
  npm: { partial: true, stopAtOperand: true, short: "w:C:", long: ["prefix=", "userconfig=", "globalconfig=", "registry=", "workspace=", "cache=", "loglevel=", "location=", "otp="] },
  pnpm: { partial: true, stopAtOperand: true, short: "C:F:w", long: ["dir=", "filter=", "recursive", "workspace-root", "reporter=", "loglevel=", "config=", "store-dir="] },
  yarn: { partial: true, stopAtOperand: true, long: ["cwd=", "mutex=", "modules-folder=", "cache-folder=", "global-folder=", "use-yarnrc=", "registry="] },
  npx: { partial: true, stopAtOperand: true, short: "p:c:w:", long: ["package=", "call=", "prefix=", "workspace=", "userconfig=", "registry="] },
  kubectl: {
    style: "exact",
    partial: true,
    stopAtOperand: true,
    short: "n:s:v:",
    long: [
      "context=", "namespace=", "kubeconfig=", "cluster=", "user=", "server=", "token=", "as=", "as-group=", "as-uid=", "certificate-authority=",
      "client-certificate=", "client-key=", "request-timeout=", "tls-server-name=", "cache-dir=", "profile=", "profile-output=", "log-file=",
      "v=", "vmodule=", "password=", "username=", "log-dir=",
    ],
  },
  helm: { style: "exact", partial: true, stopAtOperand: true, short: "n:", long: ["namespace=", "kube-context=", "kubeconfig=", "kube-apiserver=", "kube-as-user=", "kube-as-group=", "kube-token=", "kube-ca-file=", "registry-config=", "repository-cache=", "repository-config=", "burst-limit=", "qps="] },
  docker: { style: "exact", partial: true, stopAtOperand: true, short: "c:H:l:D", long: ["config=", "context=", "host=", "log-level=", "tlscacert=", "tlscert=", "tlskey="] },
  podman: { style: "exact", partial: true, stopAtOperand: true, long: ["connection=", "url=", "identity=", "root=", "runroot=", "storage-driver=", "cgroup-manager=", "log-level=", "module="] },
  cargo: { partial: true, stopAtOperand: true, short: "C:Z:", long: ["config=", "color="] },
  make: { partial: true, short: "C:f:I:j::l::o:W:O::", long: ["directory=", "file=", "makefile=", "include-dir=", "jobs=?", "load-average=?", "old-file=", "what-if=", "output-sync=?", "eval="] },
};

/** For partial tables: the reading where an unknown `--name` takes the next word. */
const SECOND_READINGS: Record<string, CommandTable> = Object.fromEntries(
  Object.entries(GLOBALS).filter(([, t]) => t.partial).map(([n, t]) => [n, { ...t, unknownTakesValue: true }]),
);

/** The command's words from its subcommand on, read by its global-option table; one list per reading. */
function strippedReadings(name: string, words: readonly Word[]): string[][] {
  const table = GLOBALS[name];
  if (!table) return [];
  const readings: CommandTable[] = [table];
  const second = SECOND_READINGS[name];
  if (second) readings.push(second);
  const out: string[][] = [];
  for (const t of readings) {
    const parsed = getopt(words, t);
    const operands = parsed.operands;
    const first = operands[0];
    if (!first) continue;
    // cargo +toolchain build: the toolchain is no subcommand.
    const start = name === "cargo" && first.word.text.startsWith("+") ? operands[1]?.index : first.index;
    if (start === undefined) continue;
    // make: the targets are the operands (options may follow them).
    const rest = name === "make" ? operands.map((o) => o.word.text) : words.slice(start).map((w) => w.text);
    out.push([words[0]?.text ?? name, ...rest]);
  }
  return out;
}

/** Texts besides `argv.join(" ")` that deny and ask rules must see for this command. */
export function ruleTextsOf(words: readonly Word[]): string[] {
  const first = words[0];
  if (!first) return [];
  const name = commandBaseName(first.text);
  if (!Object.hasOwn(GLOBALS, name)) return [];
  const text = words.map((w) => w.text).join(" ");
  const out = new Set<string>();
  for (const reading of strippedReadings(name, words)) out.add(reading.join(" "));
  if (name === "git") {
    // `git -c alias.p=push p` runs `git push`.
    const globals = getopt(words, GIT_GLOBAL);
    const sub = globals.operands[0];
    if (sub) {
      for (const { key, value } of gitConfigOverrides(globals)) {
        if (key !== `alias.${sub.word.text.toLowerCase()}`) continue;
        const after = words.slice(sub.index + 1).map((w) => w.text);
        out.add(value.startsWith("!") ? [value.slice(1), ...after].join(" ") : ["git", value, ...after].join(" "));
      }
    }
  }
  out.delete(text);
  return [...out];
}

const SHELL_WORDS = new Set([
  "cd", "pushd", "popd", "export", "declare", "typeset", "local", "readonly", "unset", "set", "shopt", "source", ".", "read", "printf",
  "echo", "test", "[", "[[", "exit", "return", "shift", "alias", "unalias", "true", "false", ":", "eval", "exec", "trap", "wait",
  "let", "getopts", "hash", "type", "command", "builtin", "enable", "umask", "ulimit", "times", "jobs", "fg", "bg", "disown",
  "history", "fc", "mapfile", "readarray", "caller", "compgen", "complete", "dirs", "help", "logout", "suspend", "kill", "break", "continue",
  "bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "find", "sudo", "doas", "noglob", "coproc", "{", "}", "perl", "ruby",
]);

/** Whether the analysis models what this command reads, writes and runs (else it is opaque). */
export function isModelledCommand(name: string): boolean {
  const base = commandBaseName(name);
  return SHELL_WORDS.has(base) || tableFor(base) !== undefined || hasReadOnlyModel(base) || hasTargetModel(base) || base === "git";
}
