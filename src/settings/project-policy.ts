/**
 * What a project's own configuration may do. A project directory is untrusted until the user
 * trusts it (`armature trust`): until then its settings may only restrict. Once trusted, its
 * `env` may still set only variables that cannot make a program run code. Kept as data, with the
 * reason for each entry.
 */
import { visible } from "../text/visible.js";

/** Keys of a project settings file that widen what runs or what is allowed: ignored while untrusted. */
export const WIDENING_KEYS: ReadonlyArray<{ key: string; reason: string }> = [
  { key: "permissions.allow", reason: "allow rules approve calls without asking" },
  { key: "permissions.additionalDirectories", reason: "working directories widen where tools read and write without asking" },
  { key: "permissions.defaultMode", reason: "a mode such as acceptEdits approves writes without asking" },
  { key: "hooks", reason: "hooks run commands and send data to URLs" },
  { key: "env", reason: "environment variables configure what tool processes run" },
  { key: "mcpServers", reason: "MCP servers are programs started on the machine" },
  { key: "enableAllProjectMcpServers", reason: "turns on the project's .mcp.json servers" },
  { key: "enabledMcpjsonServers", reason: "turns on the project's .mcp.json servers" },
  { key: "sandbox.excludedCommands", reason: "excluded commands run outside the OS sandbox" },
  { key: "sandbox.network.allowedDomains", reason: "allowed hosts are reachable from inside the OS sandbox" },
  { key: "sandbox.network.allowUnixSockets", reason: "a Unix socket reaches a program outside the OS sandbox" },
  { key: "sandbox.filesystem.allowWrite", reason: "writable paths widen the OS sandbox" },
  { key: "sandbox.filesystem.allowRead", reason: "credentials the OS sandbox hides become readable" },
  { key: "import", reason: "turns on other settings files, the user's ~/.claude/settings.json among them" },
];

function valueAt(settings: Record<string, unknown>, key: string): unknown {
  let v: unknown = settings;
  for (const part of key.split(".")) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** The widening keys a settings object sets, with their values (for the warning and the trust fingerprint). */
export function wideningValues(settings: Record<string, unknown>): Array<{ key: string; value: unknown }> {
  const out: Array<{ key: string; value: unknown }> = [];
  for (const { key } of WIDENING_KEYS) {
    const value = valueAt(settings, key);
    if (value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    out.push({ key, value });
  }
  return out;
}

/**
 * A widening value for the warning, in full and nothing cut: `permissions.allow ["Bash(*)", "Read"]`,
 * `hooks (PreToolUse [Bash]: runs ./fmt.sh)`. Hidden characters are written out (see `visible`).
 */
export function describeWidening(key: string, value: unknown): string {
  const full = describeInFull(key, value);
  return visible(Array.isArray(value) ? `${key} [${full}]` : value !== null && typeof value === "object" ? `${key} (${full})` : `${key} ${full}`);
}

/**
 * A widening value in full, for the user who trusts it: every rule, every hook command, every
 * MCP server's command line, URL and env keys (values of env are shown for `env`, where the
 * project sets them; an MCP server's env values may be secrets of the user's and are not).
 */
export function describeInFull(key: string, value: unknown): string {
  if (key === "hooks" && value !== null && typeof value === "object") {
    const out: string[] = [];
    for (const [event, groups] of Object.entries(value as Record<string, unknown>)) {
      for (const group of Array.isArray(groups) ? groups : []) {
        const g = (group ?? {}) as { matcher?: unknown; hooks?: unknown };
        const matcher = typeof g.matcher === "string" && g.matcher !== "" ? ` [${g.matcher}]` : "";
        for (const h of Array.isArray(g.hooks) ? g.hooks : []) {
          const hook = (h ?? {}) as { type?: unknown; command?: unknown; args?: unknown; url?: unknown };
          const args = Array.isArray(hook.args) ? hook.args.map((a) => ` ${JSON.stringify(a)}`).join("") : "";
          const what = typeof hook.command === "string" ? `runs ${hook.command}${args}` : typeof hook.url === "string" ? `posts to ${hook.url}` : JSON.stringify(h);
          out.push(`${event}${matcher}: ${what}`);
        }
      }
    }
    return out.length > 0 ? out.join("; ") : JSON.stringify(value);
  }
  if (key === "mcpServers" && value !== null && typeof value === "object") return describeServers(value as Record<string, unknown>);
  if (key === "env" && value !== null && typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ");
  }
  if (Array.isArray(value)) return value.map((v) => JSON.stringify(v)).join(", ");
  return JSON.stringify(value);
}

export function describeServers(servers: Record<string, unknown>): string {
  return Object.entries(servers)
    .map(([name, raw]) => {
      const s = (raw ?? {}) as { command?: unknown; args?: unknown; url?: unknown; env?: unknown; headers?: unknown };
      const args = Array.isArray(s.args) ? s.args.map((a) => JSON.stringify(a)).join(" ") : "";
      const what = typeof s.command === "string" ? `runs ${s.command}${args ? ` ${args}` : ""}` : typeof s.url === "string" ? `connects to ${s.url}` : JSON.stringify(raw);
      const keys = (o: unknown): string[] => (o !== null && typeof o === "object" ? Object.keys(o) : []);
      const env = keys(s.env).length > 0 ? ` (env ${keys(s.env).join(", ")})` : "";
      const headers = keys(s.headers).length > 0 ? ` (headers ${keys(s.headers).join(", ")})` : "";
      return `${name}: ${what}${env}${headers}`;
    })
    .join("; ");
}

/**
 * Environment variables a trusted project may set: none of them can make a program load or run
 * code (no search paths, start-up files, loader or interpreter options, config-file locations,
 * wrappers or package registries). A value must also match the entry's shape, so that, say,
 * `LANG` cannot name a path. Everything else needs the user's own settings or --allow-project-env.
 */
export const INERT_ENV: ReadonlyArray<{ name: RegExp; value: RegExp; reason: string }> = [
  { name: /^NODE_ENV$/, value: /^[A-Za-z0-9_.-]{1,40}$/, reason: "a build profile name that programs read as data" },
  { name: /^(LANG|LANGUAGE|LC_[A-Z]+)$/, value: /^[A-Za-z0-9_.@:-]{0,60}$/, reason: "a locale name (no path: a slash would name locale files)" },
  { name: /^TZ$/, value: /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/, reason: "a time zone name (no leading ':' or '/', which name a file)" },
  { name: /^CI$/, value: /^[A-Za-z0-9]{0,10}$/, reason: "a flag that programs read as data" },
  { name: /^(FORCE_COLOR|NO_COLOR|CLICOLOR|CLICOLOR_FORCE)$/, value: /^[A-Za-z0-9]{0,10}$/, reason: "colour output switches" },
  { name: /^DEBUG$/, value: /^[A-Za-z0-9_:*,. -]{0,200}$/, reason: "debug-package namespaces: more log output, nothing loaded" },
  { name: /^TERM$/, value: /^[A-Za-z0-9._+-]{1,40}$/, reason: "a terminal type name (no slash, so no terminfo path)" },
  { name: /^(COLUMNS|LINES)$/, value: /^\d{1,5}$/, reason: "terminal size" },
  { name: /^(PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|PYTHONHASHSEED)$/, value: /^[0-9a-z]{0,10}$/, reason: "Python output and hashing switches (no paths, no codecs)" },
  { name: /^(RUST_BACKTRACE|RUST_LOG|NODE_NO_WARNINGS)$/, value: /^[A-Za-z0-9_=,:.-]{0,100}$/, reason: "log and backtrace verbosity" },
  { name: /^[A-Z][A-Z0-9_]*_PORT$/, value: /^\d{1,5}$/, reason: "a port number for the project's own services" },
  { name: /^[A-Z][A-Z0-9_]*_HOST$/, value: /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/, reason: "a host name for the project's own services (no scheme, so no ssh:// or command)" },
  { name: /^[A-Z][A-Z0-9_]*_URL$/, value: /^https?:\/\/[^\s]{1,500}$/, reason: "an http(s) URL for the project's own services" },
];

/**
 * Name prefixes of tools that fetch or run code from a URL or host (package indexes, registries,
 * toolchain downloads, API endpoints that would receive the user's credentials): a `*_URL` or
 * `*_HOST` name with one of them is never inert.
 */
const TOOL_PREFIXES = /^(PIP|UV|NPM|YARN|PNPM|POETRY|PIPENV|CONDA|MAMBA|CARGO|RUSTUP|GO|GIT|BUNDLE|GEM|COMPOSER|MAVEN|GRADLE|NODE|NVM|HOMEBREW|JAVA|CONAN|NUGET|DENO|BUN|DOCKER|SSH|ARMATURE|CLAUDE|ANTHROPIC|OPENAI|AWS|AZURE|GOOGLE|GCLOUD|HF|HUGGINGFACE|PYPI|TWINE|HTTP|HTTPS|ALL|NO|FTP|SOCKS)_/;

/** Why a trusted project may set this variable (its reason), or null when it may not. */
export function inertEnvReason(name: string, value: string): string | null {
  for (const entry of INERT_ENV) {
    if (!entry.name.test(name)) continue;
    if (/_(URL|HOST)$/.test(name) && TOOL_PREFIXES.test(name)) return null;
    return entry.value.test(value) ? entry.reason : null;
  }
  return null;
}
