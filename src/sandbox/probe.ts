// Whether an OS sandbox can run here, found out once per process: the bwrap binary is there and
// the kernel lets it make the namespaces it needs (user namespaces may be refused by sysctl,
// AppArmor or a container's seccomp profile). macOS's sandbox-exec would be another `kind`.
import { spawnSync } from "node:child_process";
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

function runProbe(wanted: string, env: Env): SandboxProbe {
  if (process.platform !== "linux") return { available: false, kind: "none", reason: `no OS sandbox is supported on ${process.platform} yet` };
  const bwrap = trustedExecutable(wanted, env);
  if (!bwrap) return { available: false, kind: "none", reason: `bubblewrap (${wanted}) is not installed` };
  // The same namespaces every sandboxed call asks for: if this runs, they all can.
  const result = spawnSync(
    bwrap,
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent", "--cap-drop", "ALL", "--", "true"],
    { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000, encoding: "utf8" },
  );
  if (result.status === 0) return { available: true, kind: "bwrap", bwrap };
  const said = (result.stderr ?? "").trim().split("\n")[0] ?? "";
  const why = result.error ? result.error.message : said !== "" ? said : `it exited with ${result.status ?? result.signal}`;
  return { available: false, kind: "none", bwrap, reason: `bubblewrap cannot create its namespaces here (${why}); user namespaces may be disabled` };
}

/** Forget the cached answers (tests that change the environment). */
export function resetSandboxProbe(): void {
  cache.clear();
}
