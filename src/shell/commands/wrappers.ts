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
  timeout: { short: "k:s:v", stopAtOperand: true, skipOperands: 1, long: ["preserve-status", "foreground", "kill-after=", "signal=", "verbose", ...STD] },
  nice: { short: "n:", numeric: true, stopAtOperand: true, long: ["adjustment=", ...STD] },
  nohup: { stopAtOperand: true, long: STD },
  stdbuf: { short: "i:o:e:", stopAtOperand: true, long: ["input=", "output=", "error=", ...STD] },
  time: { short: "f:o:apqvV", stopAtOperand: true, long: ["format=", "output=", "append", "portability", "quiet", "verbose", ...STD], values: { o: "write", output: "write" } },
  setsid: { short: "cfwhV", stopAtOperand: true, long: ["ctty", "fork", "wait", ...STD] },
  ionice: { short: "c:n:p:P:tu:hV", stopAtOperand: true, long: ["class=", "classdata=", "pid=", "pgid=", "ignore", "uid=", ...STD], noCommand: ["p", "P", "u", "pid", "pgid", "uid"] },
  taskset: { short: "apchV", stopAtOperand: true, skipOperands: 1, long: ["all-tasks", "pid", "cpu-list", ...STD], noCommand: ["p", "pid"] },
  chrt: {
    short: "bdfiorRT:P:D:ampvhV", stopAtOperand: true, skipOperands: 1,
    long: ["batch", "deadline", "fifo", "idle", "other", "rr", "reset-on-fork", "sched-runtime=", "sched-period=", "sched-deadline=", "all-tasks", "max", "pid", "verbose", ...STD],
    noCommand: ["p", "pid", "m", "max"],
  },
  prlimit: {
    short: "p:o:hVc::d::e::f::i::l::m::n::q::r::s::t::u::v::x::y::",
    stopAtOperand: true,
    long: [
      "pid=", "output=", "noheadings", "raw", "verbose", "core=?", "data=?", "nice=?", "fsize=?", "sigpending=?", "memlock=?", "rss=?",
      "nofile=?", "msgqueue=?", "rtprio=?", "stack=?", "cpu=?", "nproc=?", "as=?", "locks=?", "rttime=?", ...STD,
    ],
    noCommand: ["p", "pid"],
  },
  setpriv: {
    short: "dhV",
    stopAtOperand: true,
    long: [
      "dump", "nnp", "no-new-privs", "ambient-caps=", "inh-caps=", "bounding-set=", "ruid=", "euid=", "rgid=", "egid=", "reuid=", "regid=",
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
      "mount=?", "uts=?", "ipc=?", "net=?", "pid=?", "user=?", "cgroup=?", "time=?", "fork", "map-user=", "map-group=", "map-root-user",
      "map-current-user", "map-auto", "map-users=", "map-groups=", "kill-child=?", "mount-proc=?", "mount-binfmt=?", "propagation=",
      "setgroups=", "keep-caps", "root=", "wd=", "setuid=", "setgid=", "monotonic=", "boottime=", "load-interp=", ...STD,
    ],
    runsShellWithoutCommand: true,
    changesRoot: ["R", "root"],
  },
  nsenter: {
    short: "at:m::u::i::n::p::C::U::T::S:G:r::w::W::FZhVe",
    stopAtOperand: true,
    long: [
      "all", "target=", "mount=?", "uts=?", "ipc=?", "net=?", "pid=?", "cgroup=?", "user=?", "time=?", "setuid=", "setgid=",
      "preserve-credentials", "root=?", "wd=?", "wdns=", "env", "no-fork", "follow-context", "user-parent", "join-cgroup", ...STD,
    ],
    runsShellWithoutCommand: true,
    changesRoot: ["r", "root", "m", "mount", "a", "all"],
  },
  fakeroot: { short: "l:f:i:s:ub:vh", stopAtOperand: true, long: ["lib=", "faked=", "unknown-is-real", "fd-base=", ...STD], values: { i: "read", s: "write", l: "exec", lib: "exec", faked: "exec" }, runsShellWithoutCommand: true },
  flock: {
    short: "sexunw:E:oc:FhV",
    stopAtOperand: true,
    skipOperands: 1,
    long: ["shared", "exclusive", "unlock", "nonblock", "nb>nonblock", "timeout=", "wait>timeout", "conflict-exit-code=", "close", "command=", "no-fork", "verbose", ...STD],
    shellString: ["c", "command"],
  },
  script: {
    short: "I:O:B:T:t::m:ac:efE:o:qhV",
    long: ["log-in=", "log-out=", "log-io=", "log-timing=", "timing=?", "logging-format=", "append", "command=", "return", "flush", "force", "echo=", "output-limit=", "quiet", ...STD],
    values: { I: "write", "log-in": "write", O: "write", "log-out": "write", B: "write", "log-io": "write", T: "write", "log-timing": "write", t: "write", timing: "write" },
    shellString: ["c", "command"],
    runsShellWithoutCommand: true,
  },
  strace: {
    short: "a:Ab:cCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ",
    stopAtOperand: true,
    long: [
      "env=", "attach=", "user=", "detach-on=", "daemonize=?", "follow-forks", "output-separately", "interruptible=", "trace=", "signal=",
      "status=", "trace-path=", "successful-only", "failed-only", "columns=", "abbrev=", "verbose=", "raw=", "read=", "write=", "quiet=",
      "kvm=", "decode-fds=?", "instruction-pointer", "stack-traces", "syscall-number", "output=", "output-append-mode", "relative-timestamps=?",
      "string-limit=", "absolute-timestamps=?", "timestamps>absolute-timestamps", "syscall-times=?", "no-abbrev", "strings-in-hex=?", "const-print-style=", "decode-pids=", "summary-only",
      "summary", "summary-syscall-overhead=", "summary-sort-by=", "summary-columns=", "summary-wall-clock", "inject=", "fault=", "debug",
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
      "suppressions=?", "gen-suppressions=?", "trace-children=?", "log-fd=?", "xml=?", "xml-fd=?", "help", "help-debug", "help-dyn-options",
      "version", "quiet", "verbose", "massif-out-file=?", "callgrind-out-file=?", "cachegrind-out-file=?", "dhat-out-file=?",
    ],
    partial: true,
    values: { "log-file": "write", "xml-file": "write", "xtree-memory-file": "write", "xtree-leak-file": "write", "massif-out-file": "write", "callgrind-out-file": "write", "cachegrind-out-file": "write", "dhat-out-file": "write", "vgdb-prefix": "write", suppressions: "read" },
  },
  "systemd-run": {
    // Runs the command in a transient unit: an opaque service manager, only its command is seen.
    short: "HM:qGdp:E:tPSu",
    stopAtOperand: true,
    partial: true,
    long: ["host=", "machine=", "scope", "unit=", "property=", "description=", "slice=", "uid=", "gid=", "nice=", "working-directory=", "same-dir", "setenv=", "pty", "pipe", "shell", "quiet", "wait", "user", "system", "collect", "service-type=", "on-active=", "on-boot=", "on-calendar=", "remain-after-exit", "send-sighup", ...STD],
  },
  eatmydata: { stopAtOperand: true, long: STD },
  xargs: {
    short: "0a:d:E:e::I:i::L:l::n:oP:prs:tx",
    stopAtOperand: true,
    long: [
      "null", "arg-file=", "delimiter=", "eof=?", "replace=?", "max-lines=?", "max-args=", "open-tty", "max-procs=", "interactive",
      "process-slot-var=", "no-run-if-empty", "max-chars=", "show-limits", "verbose", "exit", ...STD,
    ],
    values: { a: "read", "arg-file": "read" },
  },
  env: {
    short: "i0u:C:S:v",
    stopAtOperand: true,
    long: ["ignore-environment", "null", "unset=", "chdir=", "split-string=", "block-signal=?", "default-signal=?", "ignore-signal=?", "list-signal-handling", "debug", ...STD],
    shellString: ["S", "split-string"],
    changesRoot: ["C", "chdir"],
  },
  watch: {
    short: "bCcd::eghn:pq:rtvwx",
    stopAtOperand: true,
    long: ["beep", "color", "no-color", "differences=?", "errexit", "chgexit", "interval=", "precise", "equexit=", "no-rerun", "no-title", "no-wrap", "exec", ...STD],
  },
  su: {
    short: "c:fg:G:lmpPs:hVw:",
    long: ["command=", "session-command=", "fast", "group=", "supp-group=", "login", "preserve-environment", "pty", "shell=", "whitelist-environment=", ...STD],
    shellString: ["c", "command", "session-command"],
  },
  runuser: {
    short: "c:fg:G:lmpPs:u:hVw:",
    long: ["command=", "session-command=", "fast", "group=", "supp-group=", "login", "preserve-environment", "pty", "shell=", "user=", "whitelist-environment=", ...STD],
    shellString: ["c", "command", "session-command"],
  },
  nocache: { stopAtOperand: true, short: "n:", long: [] },
};
