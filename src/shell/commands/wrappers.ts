// Option tables of the commands that run another command: where the wrapped command starts
// (the first operand, or the one after NEWROOT / FILE / MASK / DURATION), and the options
// that give a shell string (`flock -c`, `script -c`) or write files (`strace -o`).
import type { CommandTable } from "./types.js";

export interface WrapperTable extends CommandTable {
  /** Operands before the wrapped command (`chroot NEWROOT cmd`, `timeout 5 cmd`, `flock FILE cmd`). */
  skipOperands?: number;
  /** Options whose value is a shell string the wrapper runs with `sh -c`. */
  shellString?: readonly string[];
  /** Options after which no command is run (`ionice -p PID`, `taskset -p`, `chrt -p`). */
  noCommand?: readonly string[];
  /** No command given: the wrapper runs an interactive shell (script, unshare, chroot, nsenter). */
  runsShellWithoutCommand?: boolean;
  /** The wrapped command sees other paths than ours (a new root): its paths are only approximate. */
  changesRoot?: readonly string[];
}

const STD = ["help", "version"];

export const WRAPPERS: Record<string, WrapperTable> = {
  timeout: { short: "k:s:v", stopAtOperand: true, skipOperands: 1, long: ["preserve-status", "foreground", "kill-after=|k", "signal=|s", "verbose|v", ...STD] },
  nice: { short: "n:", numeric: true, stopAtOperand: true, long: ["adjustment=|n", ...STD] },
  nohup: { stopAtOperand: true, long: STD },
  stdbuf: { short: "i:o:e:", stopAtOperand: true, long: ["input=|i", "output=|o", "error=|e", ...STD] },
  time: { short: "f:o:apqvV", stopAtOperand: true, long: ["format=|f", "output=|o", "append|a", "portability|p", "quiet|q", "verbose|v", ...STD], values: { o: "write", output: "write" } },
  setsid: { short: "cfwhV", stopAtOperand: true, long: ["ctty|c", "fork|f", "wait|w", ...STD] },
  ionice: { short: "c:n:p:P:tu:hV", stopAtOperand: true, long: ["class=|c", "classdata=|n", "pid=|p", "pgid=|P", "ignore|t", "uid=|u", ...STD], noCommand: ["p", "P", "u", "pid", "pgid", "uid"] },
  taskset: { short: "apchV", stopAtOperand: true, skipOperands: 1, long: ["all-tasks|a", "pid|p", "cpu-list|c", ...STD], noCommand: ["p", "pid"] },
  chrt: {
    short: "bdfiorRT:P:D:ampvhV", stopAtOperand: true, skipOperands: 1,
    long: ["batch|b", "deadline|d", "fifo|f", "idle|i", "other|o", "rr|r", "reset-on-fork|R", "sched-runtime=|T", "sched-period=|P", "sched-deadline=|D", "all-tasks|a", "max|m", "pid|p", "verbose|v", ...STD],
    noCommand: ["p", "pid", "m", "max"],
  },
  prlimit: {
    short: "p:o:hVc::d::e::f::i::l::m::n::q::r::s::t::u::v::x::y::",
    stopAtOperand: true,
    long: [
      "pid=|p", "output=|o", "noheadings", "raw", "verbose", "core=?|c", "data=?|d", "nice=?|e", "fsize=?|f", "sigpending=?|i", "memlock=?|l", "rss=?|m",
      "nofile=?|n", "msgqueue=?|q", "rtprio=?|r", "stack=?|s", "cpu=?|t", "nproc=?|u", "as=?|v", "locks=?|x", "rttime=?|y", ...STD,
    ],
    noCommand: ["p", "pid"],
  },
  setpriv: {
    short: "dhV",
    stopAtOperand: true,
    long: [
      "dump|d", "nnp", "no-new-privs", "ambient-caps=", "inh-caps=", "bounding-set=", "ruid=", "euid=", "rgid=", "egid=", "reuid=", "regid=",
      "clear-groups", "keep-groups", "init-groups", "groups=", "securebits=", "pdeathsig=", "selinux-label=", "apparmor-profile=",
      "landlock-access=", "landlock-rule=", "reset-env", ...STD,
    ],
    noCommand: ["d", "dump"],
  },
  chroot: { stopAtOperand: true, skipOperands: 1, long: ["groups=", "userspec=", "skip-chdir", ...STD], runsShellWithoutCommand: true, changesRoot: ["*"] },
  unshare: {
    short: "m::u::i::n::p::U::C::T::frcR:w:S:G:l::hV",
    stopAtOperand: true,
    long: [
      "mount=?|m", "uts=?|u", "ipc=?|i", "net=?|n", "pid=?|p", "user=?|U", "cgroup=?|C", "time=?|T", "fork|f", "map-user=", "map-group=", "map-root-user|r",
      "map-current-user|c", "map-auto", "map-users=", "map-groups=", "kill-child=?", "mount-proc=?", "mount-binfmt=?", "propagation=",
      "setgroups=", "keep-caps", "root=|R", "wd=|w", "setuid=|S", "setgid=|G", "monotonic=", "boottime=", "load-interp=", ...STD,
    ],
    runsShellWithoutCommand: true,
    changesRoot: ["R", "root"],
  },
  nsenter: {
    short: "at:m::u::i::n::p::C::U::T::S:G:r::w::W::FZhVe",
    stopAtOperand: true,
    long: [
      "all|a", "target=|t", "mount=?|m", "uts=?|u", "ipc=?|i", "net=?|n", "pid=?|p", "cgroup=?|C", "user=?|U", "time=?|T", "setuid=|S", "setgid=|G",
      "preserve-credentials", "root=?|r", "wd=?|w", "wdns=", "env", "no-fork|F", "follow-context|Z", "user-parent", "join-cgroup", ...STD,
    ],
    runsShellWithoutCommand: true,
    changesRoot: ["r", "root", "m", "mount", "a", "all"],
  },
  fakeroot: { short: "l:f:i:s:ub:vh", stopAtOperand: true, long: ["lib=", "faked=", "unknown-is-real", "fd-base=", ...STD], values: { i: "read", s: "write", l: "exec", lib: "exec", faked: "exec" }, runsShellWithoutCommand: true },
  flock: {
    short: "sexunw:E:oc:FhV",
    stopAtOperand: true,
    skipOperands: 1,
    long: ["shared|s", "exclusive|x", "unlock|u", "nonblock|n", "nb>nonblock", "timeout=|w", "wait>timeout", "conflict-exit-code=|E", "close|o", "command=|c", "no-fork|F", "verbose", ...STD],
    shellString: ["c", "command"],
  },
  script: {
    short: "I:O:B:T:t::m:ac:efE:o:qhV",
    long: ["log-in=|I", "log-out=|O", "log-io=|B", "log-timing=|T", "timing=?|t", "logging-format=|m", "append|a", "command=|c", "return|e", "flush|f", "force", "echo=|E", "output-limit=|o", "quiet|q", ...STD],
    values: { I: "write", "log-in": "write", O: "write", "log-out": "write", B: "write", "log-io": "write", T: "write", "log-timing": "write", t: "write", timing: "write" },
    shellString: ["c", "command"],
    runsShellWithoutCommand: true,
  },
  strace: {
    short: "a:Ab:cCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ",
    stopAtOperand: true,
    long: [
      "env=|E", "attach=|p", "user=|u", "detach-on=|b", "daemonize=?|D", "follow-forks|f", "output-separately", "interruptible=|I", "trace=", "signal=",
      "status=", "trace-path=|P", "successful-only|z", "failed-only|Z", "columns=|a", "abbrev=", "verbose=", "raw=", "read=", "write=", "quiet=",
      "kvm=", "decode-fds=?", "instruction-pointer|i", "stack-traces|k", "syscall-number|n", "output=|o", "output-append-mode|A", "relative-timestamps=?|r",
      "string-limit=|s", "absolute-timestamps=?|t", "timestamps>absolute-timestamps", "syscall-times=?|T", "no-abbrev|v", "strings-in-hex=?|x", "const-print-style=|X", "decode-pids=|Y", "summary-only|c",
      "summary|C", "summary-syscall-overhead=|O", "summary-sort-by=|S", "summary-columns=|U", "summary-wall-clock|w", "inject=", "fault=", "debug|d",
      "seccomp-bpf", "tips=?", "secontext=?", "stack-trace-frame-limit=", "decode-fds=?", "argv0=", ...STD,
    ],
    values: { o: "write", output: "write" },
    noCommand: ["p", "attach"],
  },
  ltrace: { short: "a:A:bcCDe:fF:hiLl:n:o:p:rs:StTu:Vwx:", stopAtOperand: true, long: ["align=", "config=", "demangle", "debug=", "library=", "output=", "indent=", "where=", ...STD], values: { o: "write", output: "write", F: "read", config: "read" }, noCommand: ["p"] },
  valgrind: {
    // valgrind's options are `--name=value` only; each tool adds its own, so only the file-writing ones matter here.
    short: "hqvs",
    style: "exact",
    stopAtOperand: true,
    long: [
      "tool=?", "log-file=?", "xml-file=?", "log-socket=?", "xml-socket=?", "vgdb-prefix=?", "xtree-memory-file=?", "xtree-leak-file=?",
      "suppressions=?", "gen-suppressions=?", "trace-children=?", "log-fd=?", "xml=?", "xml-fd=?", "help|h", "help-debug", "help-dyn-options",
      "version", "quiet|q", "verbose|v", "massif-out-file=?", "callgrind-out-file=?", "cachegrind-out-file=?", "dhat-out-file=?",
    ],
    partial: true,
    values: { "log-file": "write", "xml-file": "write", "xtree-memory-file": "write", "xtree-leak-file": "write", "massif-out-file": "write", "callgrind-out-file": "write", "cachegrind-out-file": "write", "dhat-out-file": "write", "vgdb-prefix": "write", suppressions: "read" },
  },
  "systemd-run": {
    // Runs the command in a transient unit: an opaque service manager, only its command is seen.
    short: "HM:qGdp:E:tPSu",
    stopAtOperand: true,
    partial: true,
    long: ["host=|H", "machine=|M", "scope", "unit=|u", "property=|p", "description=", "slice=", "uid=", "gid=", "nice=", "working-directory=", "same-dir|d", "setenv=|E", "pty|t", "pipe|P", "shell|S", "quiet|q", "wait", "user", "system", "collect|G", "service-type=", "on-active=", "on-boot=", "on-calendar=", "remain-after-exit", "send-sighup", ...STD],
  },
  eatmydata: { stopAtOperand: true, long: STD },
  xargs: {
    short: "0a:d:E:e::I:i::L:l::n:oP:prs:tx",
    stopAtOperand: true,
    long: [
      "null|0", "arg-file=|a", "delimiter=|d", "eof=?|e", "replace=?|i", "max-lines=?|L", "max-args=|n", "open-tty|o", "max-procs=|P", "interactive|p",
      "process-slot-var=", "no-run-if-empty|r", "max-chars=|s", "show-limits", "verbose|t", "exit|x", ...STD,
    ],
    values: { a: "read", "arg-file": "read" },
  },
  env: {
    short: "i0u:C:S:v",
    stopAtOperand: true,
    long: ["ignore-environment|i", "null|0", "unset=|u", "chdir=|C", "split-string=|S", "block-signal=?", "default-signal=?", "ignore-signal=?", "list-signal-handling", "debug|v", ...STD],
    shellString: ["S", "split-string"],
    changesRoot: ["C", "chdir"],
  },
  watch: {
    short: "bCcd::eghn:pq:rtvwx",
    stopAtOperand: true,
    long: ["beep|b", "color|c", "no-color", "differences=?|d", "errexit|e", "chgexit|g", "interval=|n", "precise|p", "equexit=|q", "no-rerun", "no-title|t", "no-wrap|w", "exec|x", ...STD],
  },
  su: {
    short: "c:fg:G:lmpPs:hVw:",
    long: ["command=|c", "session-command=", "fast|f", "group=|g", "supp-group=|G", "login|l", "preserve-environment|mp", "pty|P", "shell=|s", "whitelist-environment=|w", ...STD],
    shellString: ["c", "command", "session-command"],
  },
  runuser: {
    short: "c:fg:G:lmpPs:u:hVw:",
    long: ["command=|c", "session-command=", "fast|f", "group=|g", "supp-group=|G", "login|l", "preserve-environment|mp", "pty|P", "shell=|s", "user=|u", "whitelist-environment=|w", ...STD],
    shellString: ["c", "command", "session-command"],
  },
  nocache: { stopAtOperand: true, short: "n:", long: [] },
};
