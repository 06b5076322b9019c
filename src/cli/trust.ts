import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  listTrustedProjects,
  projectFingerprint,
  projectTrustStatus,
  revokeProjectTrust,
  trustProject,
  trustStorePath,
} from "../settings/trust.js";
import { UsageError, type CliIO } from "./io.js";
import { visible } from "../text/visible.js";
import { loadExecSettings, type ExecSettings, type ExecSettingsInput } from "./settings.js";

export const TRUST_HELP = `Usage: armature trust [DIR] [options]

Trusts a project directory (default: the current one): its own settings (.armature/, .claude/
with --settings-from claude, .mcp.json) may then run hooks, allow calls, set inert env variables,
add working directories and start MCP servers. Until then they may only restrict.
Trust is pinned: it records the directory's real path and a hash of that configuration (and of
the scripts its hooks and MCP servers name) in $ARMATURE_CONFIG_DIR/trust.json (default
~/.armature/trust.json). When the configuration changes, the project is untrusted again.

Options:
  --list           list trusted directories
  --revoke         remove the trust of DIR (default: the current one)
  --status         say whether DIR is trusted, and what changed if it was
  --json           print the answer as one JSON object on stdout (same exit codes)
  -h, --help       this text
`;

function directory(arg: string | undefined): string {
  const dir = resolve(arg ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`trust: ${dir} is not a directory`);
  return dir;
}

export async function trustCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      list: { type: "boolean" },
      revoke: { type: "boolean" },
      status: { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(TRUST_HELP);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`trust takes one directory, got ${positionals.length}: ${positionals.join(" ")}`);
  if ([values.list, values.revoke, values.status].filter(Boolean).length > 1) throw new UsageError("trust: use one of --list, --revoke, --status");
  const json = (value: unknown): void => void io.stdout.write(`${JSON.stringify(value)}\n`);
  if (values.list) {
    if (positionals.length > 0) throw new UsageError("trust --list takes no directory");
    const records = await listTrustedProjects();
    const listed = [];
    for (const r of records) {
      const status = await projectTrustStatus(r.dir);
      listed.push({ dir: r.dir, trustedAt: r.trustedAt, trusted: status.trusted, changes: status.changes });
      const note = status.trusted ? "" : `  (untrusted again: ${status.changes.join("; ")})`;
      if (!values.json) io.stdout.write(`${visible(r.dir)}\t${r.trustedAt}${visible(note)}\n`);
    }
    if (values.json) json({ store: trustStorePath(), projects: listed });
    else if (records.length === 0) io.stderr.write(`armature: no trusted directories (${trustStorePath()})\n`);
    return 0;
  }
  if (values.revoke) {
    const dir = resolve(positionals[0] ?? process.cwd());
    const had = await revokeProjectTrust(dir);
    if (values.json) json({ dir, revoked: had });
    else io.stdout.write(had ? `untrusted ${visible(dir)}\n` : `${visible(dir)} was not trusted\n`);
    return 0;
  }
  const dir = directory(positionals[0]);
  if (values.status) {
    const status = await projectTrustStatus(dir);
    const detail = status.state === "changed" ? `: its configuration changed since it was trusted (${status.changes.join("; ")})` : "";
    if (values.json) json(status);
    else io.stdout.write(`${visible(status.dir)}: ${status.trusted ? "trusted" : "not trusted"}${visible(detail)}\n`);
    return status.trusted ? 0 : 1;
  }
  const before = await projectTrustStatus(dir);
  const fp = await projectFingerprint(dir);
  await trustProject(dir);
  if (values.json) {
    const pinned = Object.keys(fp.entries).sort().map((entry) => ({ entry, ...(fp.shown?.[entry] ? { shown: fp.shown[entry] } : {}) }));
    json({ dir: fp.dir, trusted: true, changesSinceLastTrust: before.state === "changed" ? before.changes : [], pinned, notPinned: fp.unpinned ?? [] });
    return 0;
  }
  io.stdout.write(`trusted ${visible(fp.dir)}\n`);
  if (before.state === "changed") io.stdout.write(`  since the last trust: ${visible(before.changes.join("; "))}\n`);
  const pinned = Object.keys(fp.entries).sort();
  if (pinned.length === 0) io.stdout.write("  (no hooks, allow rules, env, working dirs or MCP servers configured yet)\n");
  for (const entry of pinned) io.stdout.write(`  pinned: ${visible(entry)}${fp.shown?.[entry] ? ` ${visible(fp.shown[entry])}` : ""}\n`);
  // What a hook or server runs that trust cannot hold still: the user decides knowing it.
  for (const what of fp.unpinned ?? []) io.stdout.write(`  not pinned: ${visible(what)}\n`);
  return 0;
}

/**
 * `exec --interactive` on a terminal: when the project's own settings were set aside because it
 * is not trusted, show what was ignored and offer to trust it now (recorded and pinned, as
 * `armature trust` does). Declining keeps it untrusted for this run; the warning is not repeated.
 */
export async function offerTrust(settings: ExecSettings, input: ExecSettingsInput, io: CliIO): Promise<ExecSettings> {
  const trust = settings.loaded.trust;
  const warning = settings.warnings.find((w) => w.startsWith(`${visible(trust.dir)} is not trusted`));
  if (trust.trusted || warning === undefined || !io.question) return settings;
  const answer = (await io.question(`\narmature: ${warning}\nTrust ${visible(trust.dir)} now and apply its settings? [y/N]: `)).trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") return { ...settings, warnings: settings.warnings.filter((w) => w !== warning) };
  await trustProject(trust.dir, { home: input.home, userDir: input.userDir });
  io.stderr.write(`armature: trusted ${visible(trust.dir)}\n`);
  return loadExecSettings(input);
}
