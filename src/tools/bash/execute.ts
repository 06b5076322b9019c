// One Bash call from start to BashOutput: working directory, environment, sandbox, the process,
// and what it leaves behind (the next cwd, a background task).
import { randomBytes } from "node:crypto";
import { mkdir, open } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { isExhaustion, startFailure as couldNotStart } from "../../fs/errno.js";
import type { ProgressCallback, SessionState, ShellCommandFacts, ToolUseContext } from "../../tool/types.js";
import { taskRegistry, type BackgroundTask } from "../../tasks/registry.js";
import { PREVIEW_BYTES } from "../../budget/persist.js";
import { bashLimitsFromEnv, commandEnv, effectiveTimeout, resolveShell, timeoutAction, type Env } from "./config.js";
import { interpretExitCode } from "./exit-code.js";
import { parseImageOutput, toImageOutput } from "./image.js";
import { formatBytes, readImageCandidate, readOutputRange } from "./output.js";
import { markLiveOutput, trimOutputFolder } from "./output-folder.js";
import type { BashOutput } from "./result.js";
import { startShell, type RunningShell, type ShellOutcome, type ShellWrapper } from "./run-shell.js";
import { bwrapArgs, chooseBoundary, gitProgramsOffEnv, isExcludedCommand, newCallMark, sandboxActive, sandboxPlan, sandboxUnavailableMessage, usesNoNetwork, type BoundaryReport, type SandboxStatus } from "../../sandbox/index.js";
import { commandFacts } from "../../shell/command-facts.js";
import { homeProtectedPaths, linkedWorktree, linkedWorktreeProgramParts } from "../../sandbox/plan.js";
import { markPendingCall, recoverPendingCalls, removeCreatedProtected } from "../../sandbox/remove-created.js";
import { scanTree, type TreeScan } from "../../sandbox/tree-scan.js";
import { userConfigDir } from "../../session/session-home.js";
import { domainPolicy, startNetworkProxy, type NetworkProxy } from "../../sandbox/network-proxy.js";
import { deniedReadPaths, pathMarker, type SandboxConfig } from "./sandbox.js";
import { unixSocketFilter } from "../../sandbox/seccomp.js";
import { trustedExecutable } from "../../sandbox/trusted-executable.js";
import { nextCwd, startCwd } from "./working-dir.js";
import { realPathOrSelf } from "../../fs/path-identity.js";

export interface BashToolOptions {
  /** The shell binary (default: env ARMATURE_SHELL, else `bash`). */
  shell?: string;
  /** The OS sandbox (default: from env ARMATURE_SANDBOX…, else off). */
  sandbox?: SandboxConfig;
  /** Between SIGTERM and SIGKILL when a command is stopped (default 1000 ms). */
  killGraceMs?: number;
  /** Output past this many bytes stops the command (default: ARMATURE_BASH_MAX_OUTPUT_FILE_BYTES, else 1 GiB). */
  maxOutputBytes?: number;
  /**
   * What the output file keeps once the command has ended: larger output is cut to its first and
   * last halves of this (default: ARMATURE_BASH_KEEP_OUTPUT_BYTES, else 64 MiB).
   */
  keepOutputBytes?: number;
  /** The environment commands inherit (default: process.env). */
  baseEnv?: Env;
}

export interface BashCallInput {
  command: string;
  timeout?: number;
  run_in_background?: boolean;
  dangerouslyDisableSandbox?: boolean;
  description?: string;
}

export interface BashCallResult {
  data: BashOutput;
  /** The working directory for the next command, when it changes. */
  nextCwd?: string;
}

const DEFAULT_KILL_GRACE_MS = 1_000;


function randomId(): string {
  return randomBytes(6).toString("hex");
}

/**
 * The boundary of this call: the one the permission decision chose, else (a tool called without
 * the pipeline) the working directories, or outside for an approved dangerouslyDisableSandbox.
 */
export function boundaryFor(status: SandboxStatus | undefined, input: BashCallInput, facts: ShellCommandFacts, decided: BoundaryReport | undefined): BoundaryReport {
  if (!status) return "unsandboxed";
  // The decision contributes its read-only judgement; the tool's own sandbox (a host's option
  // may name another binary) says whether and how it can run, so it never fails open.
  return chooseBoundary({
    sandbox: status,
    readOnly: decided === "read-only",
    commands: facts.subcommands.map(commandFacts),
    disableSandbox: input.dangerouslyDisableSandbox === true,
  });
}

/**
 * An excluded command (`excludedCommands`) the analysis judged read-only runs outside the sandbox
 * without anyone approving it: the git it runs starts no program the repository configures.
 * (One that is not read-only was asked for, or allowed by the mode or a rule, as any command.)
 */
function excludedReadOnly(status: SandboxStatus | undefined, facts: ShellCommandFacts): boolean {
  return sandboxActive(status) && facts.readOnly && isExcludedCommand(facts.subcommands.map(commandFacts), status.excludedCommands);
}

export interface CallSandbox {
  status: SandboxStatus | undefined;
  /** A host's option decides the network of every sandboxed call (true: always, false: never). */
  network?: boolean;
}

export async function executeBash(
  input: BashCallInput,
  facts: ShellCommandFacts,
  context: ToolUseContext,
  options: BashToolOptions,
  sandboxed: CallSandbox,
  onProgress: ProgressCallback,
): Promise<BashCallResult> {
  const baseEnv = options.baseEnv ?? process.env;
  const limits = bashLimitsFromEnv({ ...baseEnv, ...context.session.env });
  const background = input.run_in_background === true;
  const timeoutMs = effectiveTimeout(input.timeout, limits, background);
  const dirs = { projectDir: context.workspace.projectDir, additionalDirectories: context.permissionContext.additionalDirectories };
  const notices: string[] = [];
  if (input.timeout !== undefined && timeoutMs < input.timeout) {
    notices.push(`The timeout of ${input.timeout} ms is above the maximum; ${timeoutMs} ms was used.`);
  }

  const start = startCwd(limits.maintainProjectWorkingDir ? dirs.projectDir : context.workspace.cwd, dirs);
  if (start.notice) notices.push(start.notice);

  const { outputDir, cwdDir, tmpDir } = await sessionShellDirs(context.session);
  const registry = background ? taskRegistry(context) : undefined;
  const id = registry ? registry.newId() : randomId();
  const outputPath = join(outputDir, `${id}.output`);
  // Room for what this call may keep: the oldest finished outputs go when the session's total would pass.
  const keepBytes = options.keepOutputBytes ?? limits.keepOutputBytes;
  const trimmed = await trimOutputFolder(outputDir, Math.max(0, limits.outputTotalBytes - Math.min(keepBytes, limits.outputTotalBytes)));
  if (trimmed.length > 0) {
    notices.push(
      `To keep this session's command outputs under ${formatBytes(limits.outputTotalBytes)} in all (ARMATURE_BASH_OUTPUT_TOTAL_BYTES), the oldest were removed: ${trimmed.join(", ")}.`,
    );
  }

  const shellName = resolveShell(options.shell, baseEnv);
  // A bare name from the system's own folders only: a `bash` a project or the model put on PATH
  // (`.venv/bin`, `node_modules/.bin`) is never the shell armature runs.
  const shell = trustedExecutable(shellName, baseEnv);
  let wrapper: ShellWrapper | undefined;
  let proxy: NetworkProxy | undefined;
  let guard: ProtectedGuard | undefined;
  const status = sandboxed.status;
  const boundary = boundaryFor(status, input, facts, context.sandboxBoundary);
  if (boundary === "unavailable" && status?.settings.required === true) {
    const why = status ? sandboxUnavailableMessage(status) : undefined;
    return {
      data: startFailure(
        `The command was not run: ${why ?? "the OS sandbox cannot run here"} Ask the user to install bubblewrap or to turn the sandbox off.`,
        { timeoutMs, cwd: start.cwd, notices, sandboxed: true },
      ),
    };
  }
  if (boundary === "read-only" || boundary === "workspace-write") {
    if (status?.bwrap === undefined) throw new Error("a sandboxed boundary without a probed bwrap binary");
    // Inside the sandbox a missing shell would be bwrap's exec error; say it as outside.
    if (shell === undefined) {
      return {
        data: startFailure(`Could not start the shell: ${shellName} was not found. Check that the configured shell exists (ARMATURE_SHELL).`, {
          timeoutMs,
          cwd: start.cwd,
          notices,
          sandboxed: true,
        }),
      };
    }
    const home = baseEnv.HOME ?? homedir();
    // A call of an earlier process that died mid-call is cleaned up before anything of this one runs.
    const pendingDir = join(userConfigDir(baseEnv, home), "pending-calls");
    recoverPendingOnce(pendingDir);
    const roots = [dirs.projectDir, ...dirs.additionalDirectories].map(realPathOrSelf);
    const linked = roots.map(linkedWorktree).filter((l) => l !== undefined);
    const extraProtected = [...linked.flatMap(linkedWorktreeProgramParts), ...homeProtectedPaths(realPathOrSelf(home), roots)];
    const marker = pathMarker(context.permissionContext.rules, realPathOrSelf(dirs.projectDir), home);
    // Read-only, everything is: only what the rules hide needs finding.
    const before = boundary === "workspace-write" || marker ? scanTree(roots, { extraProtected, ...(marker ? { mark: marker.mark, markKey: marker.key } : {}) }) : NOTHING_SCANNED;
    if (!before.complete) {
      return {
        data: startFailure(
          `The command was not run: the working directories hold more than ${before.entries.toLocaleString("en-US")} entries, too many for the sandbox to find every protected and hidden path in them. Work in a smaller directory, or ask the user to run the command.`,
          { timeoutMs, cwd: start.cwd, notices, sandboxed: true },
        ),
      };
    }
    if (boundary === "workspace-write") {
      const cleanupRoots = [...roots, ...linked.map((l) => l.common)];
      guard = { roots, cleanupRoots, before, extraProtected, unmark: markPendingCall(pendingDir, { roots: cleanupRoots, before: { protected: before.protected, vcsDirs: before.vcsDirs }, extraProtected }) };
    }
    const plan = sandboxPlan(boundary, boundary === "workspace-write" && sandboxed.network === true, status.settings, {
      ...dirs,
      cwd: start.cwd,
      reportDir: cwdDir,
      deniedReads: deniedReadPaths(context.permissionContext.rules, dirs.projectDir),
      env: baseEnv,
      tmp: tmpDir,
      needed: [shell, process.execPath],
      seccomp: true,
      scan: before,
      linkedWorktrees: linked,
    });
    // Approved to reach hosts: still no network of its own, only the proxy of the allowed ones.
    // A call of programs that open no connection (`echo > f`, `cp a b`) needs no proxy either.
    if (boundary === "workspace-write" && sandboxed.network === undefined && context.sandboxNetwork === true && !usesNoNetwork(facts, facts.subcommands.map(commandFacts))) {
      proxy = startNetworkProxy(domainPolicy(status.settings.allowedDomains, context.permissionContext.rules), baseEnv);
      plan.proxy = { node: process.execPath };
    }
    const bwrap = status.bwrap;
    const filter = plan.seccomp ? unixSocketFilter() : undefined;
    const serve = proxy?.serve;
    wrapper = { file: bwrap, args: (argv) => bwrapArgs(plan, argv), ...(filter ? { fd3: filter } : {}), ...(serve ? { onSocket: serve } : {}) };
  }
  const inSandbox = wrapper !== undefined;

  if (shell === undefined) {
    return { data: startFailure(`Could not start the shell: ${shellName} was not found. Check that the configured shell exists (ARMATURE_SHELL).`, { timeoutMs, cwd: start.cwd, notices, sandboxed: false }) };
  }
  const env = commandEnv(baseEnv, context.session.env);
  // Not removed by another call's trim while it runs (a background command's, until it ends).
  const unmark = markLiveOutput(outputPath);
  const running = startShell({
    shell,
    command: input.command,
    cwd: start.cwd,
    env: inSandbox ? { ...env, TMPDIR: "/tmp" } : excludedReadOnly(status, facts) ? { ...env, ...gitProgramsOffEnv(env) } : env,
    timeoutMs,
    // A background command outlives the call and the turn; the session's close stops it.
    ...(background ? {} : { signal: context.abortController.signal }),
    outputPath,
    cwdFile: join(cwdDir, id),
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    maxOutputBytes: options.maxOutputBytes ?? limits.maxOutputFileBytes,
    keepOutputBytes: keepBytes,
    // Foreground: new output becomes progress about ten times a second. Background: only the
    // output limit is watched.
    pollMs: background ? 1_000 : 100,
    // Inside the sandbox its PID namespace holds every process; outside, the call's mark does.
    ...(wrapper ? { wrapper } : { mark: newCallMark() }),
    ...(background ? {} : { onTimeout: timeoutAction(input.command, { ...baseEnv, ...context.session.env }) }),
    ...(background ? {} : { onChunk: (chunk: string, totalBytes: number) => onProgress({ toolUseId: "", data: { type: "bash_progress", chunk, totalBytes } }) }),
  });
  // Once the call's processes are gone: its proxy stops, and what it created at protected paths goes.
  const ended = running.done.then(
    () => undefined,
    () => undefined,
  );
  // A background command's output stays marked until it ends; a foreground one's until its result is read (below).
  let foreground = true;
  void ended.then(() => foreground || unmark());
  if (proxy) void ended.then(proxy.close);
  const removedProtected = guard ? ended.then(() => removeWhatTheCallCreated(guard)) : Promise.resolve([]);

  if (registry) {
    foreground = false;
    const task = registerBackground(registry, id, input, facts, running, outputPath);
    const data: BashOutput = {
      ...emptyOutput(timeoutMs, start.cwd, inSandbox),
      backgroundTaskId: task.id,
      outputPath,
      notices,
    };
    return { data, ...(start.cwd !== context.workspace.cwd ? { nextCwd: start.cwd } : {}) };
  }

  const outcome = await Promise.race([running.done, running.moved.then(() => undefined)]);
  if (outcome === undefined) {
    // The timeout moved it to the background: the output so far now, a notification when it ends.
    foreground = false;
    const task = registerBackground(taskRegistry(context), id, input, facts, running, outputPath);
    task.awaitedByRun = true;
    const soFar = await readOutputRange(outputPath, 0, limits.maxOutputChars);
    const data: BashOutput = {
      ...emptyOutput(timeoutMs, start.cwd, inSandbox),
      stdout: soFar.text,
      output: soFar.text,
      truncated: soFar.truncated,
      outputPath,
      backgroundTaskId: task.id,
      timedOutAfterMs: timeoutMs,
      notices,
    };
    return { data, ...(start.cwd !== context.workspace.cwd ? { nextCwd: start.cwd } : {}) };
  }
  const removed = await removedProtected;
  if (removed.length > 0) {
    notices.push(
      `Removed what the command created at protected paths: ${removed.join(", ")}. They configure programs that run outside the sandbox; to create one, use the file tools, which ask the user.`,
    );
  }
  const data = await toBashOutput(outcome, facts, limits.maxOutputChars, timeoutMs, start.cwd, inSandbox, notices).finally(unmark);
  const next = limits.maintainProjectWorkingDir ? { cwd: dirs.projectDir } : nextCwd(outcome.finalCwd, start.cwd, dirs);
  data.cwd = next.cwd;
  if (next.notice) data.notices.push(next.notice);
  return { data, ...(next.cwd !== context.workspace.cwd ? { nextCwd: next.cwd } : {}) };
}

const NOTHING_SCANNED: TreeScan = { protected: [], vcsDirs: [], hidden: [], folders: new Set(), complete: true, entries: 0 };

/** What a writable call's cleanup needs: the scan before it, and the record that outlives a crash. */
interface ProtectedGuard {
  roots: string[];
  cleanupRoots: string[];
  before: TreeScan;
  extraProtected: string[];
  unmark: () => void;
}

/** Once the call's processes are gone: what it created at protected paths is removed, then its record. */
function removeWhatTheCallCreated(guard: ProtectedGuard): string[] {
  try {
    const after = scanTree(guard.roots, { extraProtected: guard.extraProtected });
    return removeCreatedProtected(guard.before, after, guard.cleanupRoots).removed;
  } finally {
    guard.unmark();
  }
}

/** A call of an earlier process that died mid-call: its cleanup is finished before this process's first writable call. */
let recovered = false;
function recoverPendingOnce(dir: string): void {
  if (recovered) return;
  recovered = true;
  recoverPendingCalls(dir);
}

/** The first `bytes` bytes of a file as text (a character cut at the end is dropped). */
async function readStart(path: string, bytes: number): Promise<string> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString("utf8").replace(/\uFFFD+$/, "");
  } finally {
    await handle.close();
  }
}

/** The session's folders: output files, cwd reports, and the temp folder sandboxed commands see at /tmp. */
interface SessionShellDirs {
  outputDir: string;
  cwdDir: string;
  tmpDir: string;
}
const preparedSessions = new WeakMap<SessionState, Promise<SessionShellDirs>>();

function sessionShellDirs(session: SessionState): Promise<SessionShellDirs> {
  let dirs = preparedSessions.get(session);
  if (!dirs) {
    const outputDir = join(session.dir, "shell-output");
    const cwdDir = join(session.dir, "shell-cwd");
    const tmpDir = join(session.dir, "tmp");
    dirs = Promise.all([outputDir, cwdDir, tmpDir].map((d) => mkdir(d, { recursive: true, mode: 0o700 }))).then(
      () => ({ outputDir, cwdDir, tmpDir }),
      (err: unknown) => {
        preparedSessions.delete(session);
        throw err;
      },
    );
    preparedSessions.set(session, dirs);
  }
  return dirs;
}

function emptyOutput(timeoutMs: number, cwd: string, sandboxed: boolean): BashOutput {
  return {
    stdout: "",
    stderr: "",
    output: "",
    exitCode: null,
    interrupted: false,
    timedOut: false,
    timeoutMs,
    outputBytes: 0,
    truncated: false,
    isError: false,
    cwd,
    sandboxed,
    notices: [],
    durationMs: 0,
  };
}

function startFailure(
  message: string,
  extra: { timeoutMs: number; cwd: string; notices: string[]; sandboxed: boolean },
): BashOutput {
  return { ...emptyOutput(extra.timeoutMs, extra.cwd, extra.sandboxed), isError: true, startError: message, notices: extra.notices };
}

async function toBashOutput(
  outcome: ShellOutcome,
  facts: ShellCommandFacts,
  maxChars: number,
  timeoutMs: number,
  cwd: string,
  sandboxed: boolean,
  notices: string[],
): Promise<BashOutput> {
  const outputPath = outcome.outputBytes > 0 ? outcome.outputPath : undefined;
  const inline = outputPath ? await readOutputRange(outputPath, 0, maxChars) : { text: "", truncated: false };
  const data: BashOutput = {
    ...emptyOutput(timeoutMs, cwd, sandboxed),
    stdout: inline.text,
    output: inline.text,
    exitCode: outcome.exitCode,
    interrupted: outcome.stoppedBy === "abort",
    timedOut: outcome.stoppedBy === "timeout",
    outputBytes: outcome.outputBytes,
    truncated: inline.truncated,
    notices,
    durationMs: outcome.durationMs,
  };
  if (outputPath) data.outputPath = outputPath;
  // The preview is the output's first 2 KB, whatever the inline limit (which may be smaller).
  if (inline.truncated && outputPath) data.preview = await readStart(outputPath, PREVIEW_BYTES + 4);
  if (outcome.spawnError) {
    data.isError = true;
    data.startError = isExhaustion(outcome.spawnError)
      ? couldNotStart("The shell", outcome.spawnError).message
      : `Could not start the shell: ${outcome.spawnError.message}. Check that the configured shell exists (ARMATURE_SHELL).`;
    return data;
  }
  const exit = interpretExitCode(outcome.exitCode, facts);
  data.isError = exit.isError || outcome.stoppedBy === "output-limit";
  if (exit.meaning) data.returnCodeInterpretation = exit.meaning;
  if (outcome.stoppedBy === "output-limit") {
    notices.push(`The command was stopped after ${formatBytes(outcome.outputBytes)} of output (the limit). Write less, or redirect it to a file and search that.`);
  }
  if (outcome.kept && outputPath) {
    const { totalBytes, headBytes, tailBytes } = outcome.kept;
    notices.push(
      `The command wrote ${formatBytes(totalBytes)}; ${outputPath} keeps its first ${formatBytes(headBytes)} and last ${formatBytes(tailBytes)} (the limit per call, ARMATURE_BASH_KEEP_OUTPUT_BYTES). Rerun it with the output redirected to a file of your own to keep all of it.`,
    );
  }
  if (outcome.strayProcessesStopped) {
    notices.push("Processes the command left running in the background were stopped when it finished. Use run_in_background to keep a process running.");
  }

  const candidate = outputPath && !outcome.stoppedBy ? await readImageCandidate(outputPath, outcome.outputBytes) : undefined;
  const parsed = candidate ? parseImageOutput(candidate) : undefined;
  if (parsed) {
    const image = await toImageOutput(parsed);
    if (image) {
      data.isImage = true;
      data.image = image;
    } else {
      notices.push(`stdout was an image too large to show (${formatBytes(parsed.bytes.length)}); it is in ${outputPath}.`);
    }
  }
  return data;
}

function registerBackground(
  registry: ReturnType<typeof taskRegistry>,
  id: string,
  input: BashCallInput,
  facts: ShellCommandFacts,
  running: RunningShell,
  outputPath: string,
): BackgroundTask {
  const task: BackgroundTask = {
    id,
    type: "local_bash",
    description: input.description ?? input.command,
    command: input.command,
    outputPath,
    startedAt: Date.now(),
    status: "running",
    readOffset: 0,
    endReported: false,
    done: running.done.then((outcome) => {
      task.endedAt = Date.now();
      task.exitCode = outcome.exitCode;
      if (outcome.stoppedBy === "stopped") {
        task.status = "killed";
      } else if (outcome.stoppedBy === "timeout") {
        task.status = "failed";
        task.endNote = "its time limit expired and it was stopped";
      } else if (outcome.spawnError) {
        task.status = "failed";
        task.endNote = `could not start: ${outcome.spawnError.message}`;
      } else {
        const exit = interpretExitCode(outcome.exitCode, facts);
        task.status = exit.isError ? "failed" : "completed";
        if (exit.meaning) task.endNote = exit.meaning;
      }
    }),
    stop: async () => {
      await running.stop("stopped");
      await task.done;
    },
  };
  registry.add(task);
  return task;
}
