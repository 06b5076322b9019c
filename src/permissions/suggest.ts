import { posix } from "node:path";
import type { PermissionRule } from "../tool/types.js";
import { narrowedBashRule } from "../shell/bash-rules.js";
import { allowRuleForSubcommand } from "./match.js";
import { outsideTargets, type Scope, type Target } from "./scope.js";

const MAX_SUGGESTIONS = 5;

/** Escapes gitignore metacharacters so a saved path rule means exactly that path. */
function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}!\\()]/g, "\\$&");
}

function dirRule(tool: "Read" | "Edit", t: Target, isDir: boolean): string | null {
  const form = t.forms[0];
  if (!form || t.unknown) return null;
  const dir = isDir ? form.canonical : posix.dirname(form.canonical);
  if (dir === "/") return null;
  return `${tool}(/${escapeGlob(dir)}/**)`;
}

/**
 * Narrowed allow rules an "always allow" answer would save: one command prefix per subcommand
 * not yet allowed (`Bash(npm run test *)`, never a bare `Bash`); the directory of a file;
 * the host of a URL; the tool's name for anything else. Nothing for a command the parser
 * could not model: such a command is approved once or not at all.
 */
export function suggestRules(scope: Scope, allowRules: readonly PermissionRule[]): string[] {
  const { request } = scope;
  const out: string[] = [];
  const add = (rule: string | null): void => {
    if (rule !== null && !out.includes(rule)) out.push(rule);
  };
  const subject = request.subject;
  if (subject?.kind === "shell") {
    if (!subject.facts.complete) return [];
    for (const sub of subject.facts.subcommands) {
      if (allowRuleForSubcommand(allowRules, sub, request.tool.name)) continue;
      add(narrowedBashRule(sub));
    }
    for (const t of outsideTargets(scope, scope.writes)) add(dirRule("Edit", t, false));
    for (const t of outsideTargets(scope, scope.reads)) add(dirRule("Read", t, false));
    for (const t of outsideTargets(scope, scope.cds)) add(dirRule("Read", t, true));
  } else if (subject?.kind === "file") {
    const tool = subject.access === "write" ? "Edit" : "Read";
    const targets = subject.access === "write" ? scope.writes : scope.reads;
    for (const t of targets) add(dirRule(tool, t, request.tool.name === "Glob" || request.tool.name === "Grep"));
  } else if (subject?.kind === "url") {
    if (typeof scope.host === "string") add(`WebFetch(domain:${scope.host})`);
  } else if (request.tool.name !== "Bash") {
    add(request.tool.name);
  }
  return out.slice(0, MAX_SUGGESTIONS);
}
