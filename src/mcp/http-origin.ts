/**
 * The first check of `mcp serve --http`, before the token: a browser page can reach a server on
 * 127.0.0.1 (DNS rebinding, cross-site requests), so a request whose `Origin` is present and not
 * loopback or allowed, or whose `Host` is not the address the server is bound to (or an allowed
 * name), is refused. The MCP specification asks servers to validate `Origin`. Pure.
 */
export interface OriginPolicy {
  /** The address the server listens on, and its port. */
  host: string;
  port: number;
  /** Origins allowed besides loopback ones (`https://app.example`), exactly. */
  allowedOrigins?: readonly string[];
  /** Host names (or `name:port`) allowed besides the bound address. */
  allowedHosts?: readonly string[];
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

export function isLoopbackName(name: string): boolean {
  const bare = name.toLowerCase();
  return LOOPBACK_NAMES.has(bare) || /^127(\.\d{1,3}){3}$/.test(bare) || bare.endsWith(".localhost");
}

/** `host:port` → its name (brackets kept off) and port. */
function splitHost(value: string): { name: string; port: string | undefined } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(value) ?? /^([^:]+)(?::(\d+))?$/.exec(value);
  return m ? { name: m[1]!.toLowerCase(), port: m[2] } : { name: value.toLowerCase(), port: undefined };
}

/** Why the request is refused, or null when its Origin and Host are acceptable. */
export function originHostProblem(headers: { origin?: string | string[]; host?: string | string[] }, policy: OriginPolicy): string | null {
  const origin = headers.origin;
  if (origin !== undefined) {
    if (typeof origin !== "string") return "Forbidden: more than one Origin header";
    if (!(policy.allowedOrigins ?? []).includes(origin)) {
      let name: string | undefined;
      try {
        name = new URL(origin).hostname.replace(/^\[|\]$/g, "");
      } catch {
        name = undefined;
      }
      if (name === undefined || !isLoopbackName(name)) return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed (loopback origins are; others with --allow-origin)`;
    }
  }
  const host = headers.host;
  if (typeof host !== "string" || host === "") return "Forbidden: a Host header is required";
  const { name, port } = splitHost(host);
  const bound = splitHost(policy.host).name;
  for (const allowed of policy.allowedHosts ?? []) {
    const a = splitHost(allowed);
    if (a.name === name && (a.port === undefined || a.port === port)) return null;
  }
  if (port !== undefined && port !== String(policy.port)) return `Forbidden: Host ${JSON.stringify(host)} is not this server's address`;
  if (name === bound && bound !== "0.0.0.0" && bound !== "::") return null;
  // Bound to loopback (or to every address): the loopback names reach it too.
  if ((isLoopbackName(bound) || bound === "0.0.0.0" || bound === "::") && isLoopbackName(name)) return null;
  return `Forbidden: Host ${JSON.stringify(host)} is not this server's address (allow other names with --allow-host)`;
}
