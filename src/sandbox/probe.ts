// Whether an OS sandbox can run here, found out once per process: the bwrap binary is there and
// the kernel lets it make the namespaces it needs (user namespaces may be refused by sysctl,
// AppArmor or a container's seccomp profile). macOS's sandbox-exec would be another `kind`.
import { execFile, spawnSync } from "node:child_process";
import { trustedExecutable } from "./trusted-executable.js";

export interface SandboxProbe {
  available: boolean;
  kind: "bwrap" | "none";
  /** The bwrap binary, absolute, when it was found. */
  bwrap?: string;
  /** Why no sandbox can run, for the one message that says so. */
  reason?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const cache = new Map<string, SandboxProbe>();

/**
 * The probe, cached by the binary it tried. `ARMATURE_SANDBOX_BWRAP` names another binary (a path);
 * pointing it at a missing file is how the no-sandbox fallback is tested on a machine that has one.
 */
export function probeSandbox(env: Env = process.env): SandboxProbe {
  const wanted = env.ARMATURE_SANDBOX_BWRAP?.trim() || "bwrap";
  const key = `${wanted}\0${env.PATH ?? ""}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const probe = runProbe(wanted, env);
  cache.set(key, probe);
  return probe;
}

/**
 * Runs the probe in the background (a process starting up calls this early): its answer is
 * cached when it comes, so the first `probeSandbox` does not wait for a bwrap run on the main
 * thread. Asked before the answer came, `probeSandbox` probes itself, as without this call.
 */
export function probeSandboxSoon(env: Env = process.env): void {
  const wanted = env.ARMATURE_SANDBOX_BWRAP?.trim() || "bwrap";
  const key = `${wanted}\0${env.PATH ?? ""}`;
  if (cache.has(key)) return;
  const bwrap = process.platform === "linux" ? trustedExecutable(wanted, env) : undefined;
  if (!bwrap) return;
  const child = execFile(bwrap, PROBE_ARGS, { timeout: 10_000, encoding: "utf8" }, (err, _stdout, stderr) => {
    if (cache.has(key)) return;
    const code = (err as { code?: unknown } | null)?.code;
    cache.set(key, probeAnswer(bwrap, err ? (typeof code === "number" ? code : null) : 0, stderr, err && typeof code !== "number" ? err : undefined, (err as { signal?: string } | null)?.signal ?? null));
  });
  child.unref();
}

// The same namespaces every sandboxed call asks for: if this runs, they all can.
const PROBE_ARGS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent", "--cap-drop", "ALL", "--", "true"];

function runProbe(wanted: string, env: Env): SandboxProbe {
  if (process.platform !== "linux") return { available: false, kind: "none", reason: `no OS sandbox is supported on ${process.platform} yet` };
  const bwrap = trustedExecutable(wanted, env);
  if (!bwrap) return { available: false, kind: "none", reason: `bubblewrap (${wanted}) is not installed` };
  const result = spawnSync(bwrap, PROBE_ARGS, { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000, encoding: "utf8" });
  return probeAnswer(bwrap, result.status, result.stderr, result.error, result.signal);
}

function probeAnswer(bwrap: string, status: number | null, stderr: string | undefined, error: Error | undefined, signal: string | null): SandboxProbe {
  if (status === 0) return { available: true, kind: "bwrap", bwrap };
  const said = (stderr ?? "").trim().split("\n")[0] ?? "";
  const why = error ? error.message : said !== "" ? said : `it exited with ${status ?? signal}`;
  return { available: false, kind: "none", bwrap, reason: `bubblewrap cannot create its namespaces here (${why}); user namespaces may be disabled` };
}

/** Forget the cached answers (tests that change the environment). */
export function resetSandboxProbe(): void {
  cache.clear();
}
