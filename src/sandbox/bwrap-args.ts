// The bubblewrap command line of a boundary. Pure: the plan says what exists and what is wanted.
// Later mounts cover earlier ones, so the order is the policy: everything read-only, the session's
// own temp folder over the host's, socket directories gone, the writable set, then protected paths
// and masks on top of it.
import { BRIDGE_SCRIPT } from "./net-bridge.js";
import { SECCOMP_FD } from "./seccomp.js";

export interface BwrapPlan {
  boundary: "read-only" | "workspace-write";
  /** Canonical, existing directories bound writable (in read-only: only armature's own report dir). */
  writable: string[];
  /**
   * Directories inside the writable set bound onto themselves writable before their protected
   * parts: a mount point cannot be renamed or removed, so `mv .git x && mkdir .git` cannot swap
   * the protected parts out from under the mounts.
   */
  pinned: string[];
  /** Existing paths mounted read-only over the writable set (protected paths, denyWrite). */
  readOnly: string[];
  /**
   * armature's own report directory (the shell's cwd file), bound writable again after the
   * read-only mounts: it lies inside the config dir, which is read-only when a writable root holds
   * it (a HOME under /tmp or under the project).
   */
  report?: string;
  /** Existing paths hidden: a file becomes empty, a directory an empty read-only tmpfs. */
  masked: Array<{ path: string; directory: boolean }>;
  /** Socket directories replaced by an empty tmpfs (`/run`, `/var/run`…): the second layer under the filter. */
  hidden: string[];
  /**
   * The session's own temp folder, bound at `/tmp` (and at the host's `$TMPDIR`): the host's are
   * not seen. `visible` are the host paths inside them the call needs (the working directories, the
   * home, armature's folders), bound back read-only; the writable ones are bound again below.
   * Read-only in the read-only boundary.
   */
  tmp?: { source: string; at: string[]; visible: string[] };
  /** Unix sockets bound back in (sandbox.network.allowUnixSockets). */
  sockets: string[];
  /** The system-call filter that refuses Unix sockets (seccomp.ts) is read from fd 3. */
  seccomp: boolean;
  /** Share the host's network namespace (a host's explicit option); otherwise none at all. */
  network: boolean;
  /**
   * No network but armature's proxy: node's bridge (net-bridge.ts) in front of the command,
   * reachable on the sandbox's own 127.0.0.1, handing each connection to armature over its IPC
   * channel.
   */
  proxy?: { node: string };
  cwd: string;
}

export function bwrapArgs(plan: BwrapPlan, argv: readonly string[]): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  if (plan.tmp) {
    for (const at of plan.tmp.at) args.push("--bind", plan.tmp.source, at);
    for (const path of plan.tmp.visible) args.push("--ro-bind", path, path);
  }
  for (const dir of plan.hidden) args.push("--tmpfs", dir);
  for (const dir of plan.writable) args.push("--bind", dir, dir);
  for (const sock of plan.sockets) args.push("--bind", sock, sock);
  for (const dir of plan.pinned) args.push("--bind", dir, dir);
  for (const path of plan.readOnly) args.push("--ro-bind", path, path);
  // Again only where a read-only mount or a mask above covered it (once is enough otherwise).
  const report = plan.report;
  if (report !== undefined && [...plan.readOnly, ...plan.masked.map((m) => m.path)].some((p) => report === p || report.startsWith(`${p}/`))) {
    args.push("--bind", report, report);
  }
  for (const m of plan.masked) {
    if (m.directory) args.push("--tmpfs", m.path, "--remount-ro", m.path);
    else args.push("--ro-bind", "/dev/null", m.path);
  }
  if (plan.tmp && plan.boundary === "read-only") for (const at of plan.tmp.at) args.push("--remount-ro", at);
  // Its own PID namespace whose init dies with armature: nothing the command starts, however it
  // detaches (setsid, double forks, nohup), outlives the call or a kill -9 of armature.
  // No --new-session: commands never get a terminal (detached, stdin /dev/null), and staying in
  // the caller's process group lets one kill(-pgid) reach bwrap's inner init too, which matters
  // when bwrap is killed before its init has armed its parent-death signal.
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--cap-drop", "ALL");
  if (!plan.network || plan.proxy) args.push("--unshare-net");
  if (plan.seccomp) args.push("--seccomp", String(SECCOMP_FD));
  args.push("--chdir", plan.cwd, "--");
  if (plan.proxy) args.push(plan.proxy.node, "-e", BRIDGE_SCRIPT);
  args.push(...argv);
  return args;
}
