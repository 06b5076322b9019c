import { commandFacts } from "../shell/command-facts.js";
import { allowRuleForSubcommand, restrictiveReadRules } from "./match.js";
import { cachedPathPattern, patternRoot } from "./path-rules.js";
import type { PermissionRule } from "../tool/types.js";
import { outsideTargets, type Scope } from "./scope.js";
import { GIT_AFTER_CD } from "../shell/shared.js";
import { sameRepository } from "../shell/git-repo.js";
import { projectProgramReason } from "../shell/project-programs.js";
import type { PermissionDecision } from "./types.js";
import { containsNothingKnownToWrite, isExcludedCommand, sandboxActive } from "../sandbox/boundary.js";

/** Does the call only read (a read-only tool, and for a shell every part known read-only)? */
export function isReadOnlyCall(scope: Scope): boolean {
  const { request } = scope;
  if (scope.shell) {
    const facts = scope.shell;
    // The tool's own read-only verdict is the analysis's, which the file system may refine.
    if (!request.readOnly && !gitStaysInRepository(scope)) return false;
    // A command name not known before it runs (`$(echo rm)`, `r${x}m`, `$"cat"`) may be anything.
    return (facts.readOnly || gitStaysInRepository(scope)) && facts.complete && scope.writes.length === 0 && facts.subcommands.every((s) => commandFacts(s).programKnown);
  }
  if (!request.readOnly) return false;
  return request.subject?.kind !== "file" || request.subject.access === "read";
}

/**
 * `cd src && git status`: git after a cd is read-only when every directory the command may be
 * in belongs to the cwd's own repository (checked on the file system now).
 */
function gitStaysInRepository(scope: Scope): boolean {
  const facts = scope.shell;
  if (!facts || facts.reasons.length === 0 || !facts.reasons.every((r) => r === GIT_AFTER_CD)) return false;
  if (scope.cdUnknown || scope.cds.some((c) => c.unknown)) return false;
  const cwd = scope.canonicalize(scope.request.cwd);
  return sameRepository(cwd, scope.cds.flatMap((c) => c.forms.map((f) => f.canonical)));
}

/**
 * A read-only command whose program runs code the project's own configuration names (git's
 * repository config, `.yarnrc.yml`, `rust-toolchain.toml`…), checked where it runs: the cwd and
 * every `cd` target.
 */
function projectProgramNote(scope: Scope): string | null {
  const facts = scope.shell;
  if (!facts) return null;
  let dirs: string[] | undefined;
  for (const sub of facts.subcommands) {
    const { program, projectPrograms, network } = commandFacts(sub);
    if (projectPrograms.length === 0) continue;
    dirs ??= [scope.canonicalize(scope.request.cwd), ...scope.cds.flatMap((c) => c.forms.map((f) => f.canonical))];
    const reason = projectProgramReason(program, dirs, network);
    if (reason) return `\`${sub.text.length > 120 ? `${sub.text.slice(0, 117)}...` : sub.text}\` may run code the project ships: ${reason}`;
  }
  return null;
}

function writes(scope: Scope): boolean {
  return !isReadOnlyCall(scope);
}

/**
 * An ask that must reach a human (an ask rule, a hook's ask, a safety check): dontAsk denies
 * it, plan mode denies it for a call that changes things, no mode approves it.
 */
export function forcedAsk(scope: Scope, d: PermissionDecision): PermissionDecision {
  const mode = scope.request.permissionContext.mode;
  if (mode === "dontAsk") return { ...d, behavior: "deny", reason: `${d.reason}; dontAsk mode denies whatever would ask` };
  if (mode === "plan" && writes(scope)) return { ...d, behavior: "deny", reason: `${d.reason}; plan mode is read-only` };
  return { ...d, behavior: "ask" };
}

/**
 * With the sandbox on and `autoAllowBashIfSandboxed`, a shell call the analysis cannot prove
 * read-only but in which nothing is known to write runs in the read-only boundary instead of
 * asking: whatever it does there changes nothing. Not for a call that asked to leave the sandbox
 * or that only runs outside it (`excludedCommands`).
 */
function readOnlyInSandbox(scope: Scope): boolean {
  const { request } = scope;
  const sandbox = request.permissionContext.sandbox;
  const facts = scope.shell;
  if (!facts || !sandboxActive(sandbox) || !sandbox.autoAllowBashIfSandboxed) return false;
  if (request.input.dangerouslyDisableSandbox === true) return false;
  if (scope.writes.length > 0 || scope.treeWrites.length > 0) return false;
  // The boundary hides what Read rules name only where it can enumerate it: a pattern over paths
  // outside the working directories (`Read(~/**/.env)`) is not hidden, so the call asks instead.
  if (readRuleBeyondWalk(scope)) return false;
  const commands = facts.subcommands.map(commandFacts);
  // A part judged read-only on its own counts as writing nothing, unless the whole command has an
  // objection of its own (`cd sub && git status`: another repository's configured programs).
  const objections = new Set(facts.subcommands.flatMap((s) => (typeof s.readOnly === "object" ? [s.readOnly.objection] : [])));
  const wholeCommandObjects = facts.reasons.some((r) => !objections.has(r)) && !gitStaysInRepository(scope);
  const judged = facts.subcommands.map((s) => !wholeCommandObjects && s.readOnly === true);
  return containsNothingKnownToWrite(facts, commands, judged) && !isExcludedCommand(commands, sandbox.excludedCommands);
}

/** A Read deny or ask rule with a glob over paths outside every working directory (the walk's roots). */
export function readRuleBeyondWalk(scope: Scope): PermissionRule | undefined {
  const roots = [...scope.dirs.lexical, ...scope.dirs.canonical];
  const inside = (path: string): boolean => roots.some((d) => path === d || path.startsWith(d.endsWith("/") ? d : `${d}/`));
  return restrictiveReadRules(scope.request.permissionContext.rules).find((rule) => {
    const root = patternRoot(cachedPathPattern(rule, scope.request.projectDir, scope.home));
    return root !== undefined && !inside(root);
  });
}

function fromMode(scope: Scope, behavior: PermissionDecision["behavior"], reason: string): PermissionDecision {
  return { behavior, reason, rule: null, source: `mode:${scope.request.permissionContext.mode}` };
}

/**
 * What the mode decides once no rule, hook or check has. Reads and writes outside the working
 * directories ask in every mode but bypassPermissions.
 */
export function decideByMode(scope: Scope): PermissionDecision {
  const { request } = scope;
  const mode = request.permissionContext.mode;
  const name = request.tool.name;
  if (mode === "bypassPermissions") return fromMode(scope, "allow", "Allowed by bypassPermissions mode");

  const outsideCds = outsideTargets(scope, scope.cds);
  const outsideReads = [...outsideTargets(scope, scope.reads), ...outsideCds];
  const outsideWrites = outsideTargets(scope, scope.writes);
  const readOnly = isReadOnlyCall(scope);
  const outsideNote = (): string | null => {
    const w = outsideWrites[0];
    if (w) return `${name} would write ${w.written}, which is ${w.unknown ? "not known before the command runs" : "outside the working directories"}`;
    const r = outsideReads[0];
    if (r) return `${name} would ${outsideCds.includes(r) ? "change directory to" : "read"} ${r.written}, which is ${r.unknown ? "not known before the command runs" : "outside the working directories"}`;
    return null;
  };
  const ask = (reason: string): PermissionDecision => {
    if (mode === "dontAsk") return fromMode(scope, "deny", `${reason}, and dontAsk mode denies whatever would ask`);
    const d = fromMode(scope, "ask", reason);
    if (mode === "auto") d.classifiable = true;
    if (mode === "bubble") d.reason = `${reason} (asked of the parent agent)`;
    return d;
  };

  // An MCP server's annotations are its claim about itself: `readOnlyHint` may choose the
  // concurrency class, never skip approval (an allow rule or the user's settings do that).
  if (request.tool.isMcp === true) {
    if (mode === "plan" && !readOnly) return fromMode(scope, "deny", `${name} may change things, and plan mode is read-only. Present the plan first (ExitPlanMode).`);
    return ask(`${name} is an MCP tool; its server's readOnlyHint is not an approval, so it needs an allow rule or your approval${readOnly ? "" : ` in ${mode} mode`}`);
  }
  // Paths not known before it runs may be read in the read-only boundary (it holds them); a path
  // known to be outside the working directories still asks.
  const knownOutside = outsideWrites.length > 0 || outsideCds.length > 0 || outsideReads.some((t) => !t.unknown);
  if (readOnly) {
    const note = outsideNote() ?? projectProgramNote(scope);
    if (note && !knownOutside && projectProgramNote(scope) === null && readOnlyInSandbox(scope)) {
      return { ...fromMode(scope, "allow", "Read-only call; the paths it reads are known only when it runs, in the read-only OS sandbox"), sandbox: "read-only" };
    }
    return note ? ask(`${note}; approval needed`) : fromMode(scope, "allow", "Read-only call inside the working directories");
  }
  if (!knownOutside && readOnlyInSandbox(scope) && projectProgramNote(scope) === null) {
    return { ...fromMode(scope, "allow", "Runs in the read-only OS sandbox: nothing in it is known to write (sandbox.autoAllowBashIfSandboxed)"), sandbox: "read-only" };
  }
  if (mode === "plan") return fromMode(scope, "deny", `${name} changes things, and plan mode is read-only. Present the plan first (ExitPlanMode).`);

  const editsInside = outsideWrites.length === 0 && outsideReads.length === 0;
  if ((mode === "acceptEdits" || mode === "auto") && editsInside) {
    const subject = request.subject;
    if (subject?.kind === "file" && subject.access === "write" && scope.writes.length > 0) {
      return fromMode(scope, "allow", `File edit inside the working directories accepted in ${mode} mode`);
    }
    const facts = scope.shell;
    if (facts && facts.complete && facts.subcommands.length > 0 && facts.subcommands.every((s) => commandFacts(s).fileCommand)) {
      return fromMode(scope, "allow", `File command inside the working directories accepted in ${mode} mode`);
    }
  }
  const note = outsideNote();
  if (note) return ask(`${note}; approval needed`);
  const beyond = scope.shell && sandboxActive(request.permissionContext.sandbox) ? readRuleBeyondWalk(scope) : undefined;
  const unhidden = beyond ? ` (the sandbox cannot hide what rule ${beyond.raw} names outside the working directories, so it does not run it unasked)` : "";
  return ask(`${whatNeedsApproval(scope)} needs approval in ${mode} mode${unhidden}`);
}

/** For a shell command, the first part no allow rule covers (`rm -rf build`), else the tool's name. */
function whatNeedsApproval(scope: Scope): string {
  const facts = scope.shell;
  if (!facts) return scope.request.tool.name;
  const rules = scope.request.permissionContext.rules;
  const all = facts.subcommands.filter((s) => !allowRuleForSubcommand(rules, s, scope.request.tool.name));
  // The part the analysis objected to (`cd src && xargs rm` names xargs, not cd), with why.
  const reason = facts.reasons[0];
  const named = reason === undefined ? undefined : all.find((s) => {
    const name = commandFacts(s).writtenName;
    return name !== undefined && reason.includes(name);
  });
  const uncovered = named ?? all[0];
  if (!uncovered) return scope.request.tool.name;
  const text = uncovered.text.length > 120 ? `${uncovered.text.slice(0, 117)}...` : uncovered.text;
  return named && reason ? `\`${text}\` (${reason})` : `\`${text}\``;
}
