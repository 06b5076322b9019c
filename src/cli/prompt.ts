import type { Approver } from "../permissions/types.js";
import type { CliIO } from "./io.js";

/** Asks on the terminal: y (once), n (deny), a (always, this session), l (always, .armature/settings.local.json). */
export function terminalApprover(io: CliIO): Approver {
  return async (request) => {
    if (!io.question) return { behavior: "deny", message: "No terminal to ask on." };
    const summary = JSON.stringify(request.input).slice(0, 300);
    const rules = request.decision.suggestedRules ?? [];
    const always = rules.length > 0 ? ` / [a]lways (${rules.join(", ")}) / a[l]ways, saved locally` : " / [a]lways";
    for (;;) {
      const answer = (
        await io.question(`\n${request.tool.name} ${summary}\n${request.decision.reason}\nAllow? [y]es / [n]o${always}: `)
      ).trim().toLowerCase();
      if (answer === "y" || answer === "yes") return { behavior: "allow" };
      if (answer === "a" || answer === "always") return { behavior: "allow", remember: "session" };
      if (rules.length > 0 && answer === "l") return { behavior: "allow", remember: "local" };
      if (answer === "n" || answer === "no" || answer === "") {
        return { behavior: "deny", message: "The user declined this call. Ask the user how to proceed instead of retrying it." };
      }
    }
  };
}
