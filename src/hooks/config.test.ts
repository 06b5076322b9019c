import { describe, expect, it } from "vitest";
import { HookConfigError, parseHooksConfig } from "./config.js";

const SRC = "/p/.armature/settings.json";

function issuesOf(config: unknown): Array<{ path: string; message: string }> {
  try {
    parseHooksConfig(config, SRC);
  } catch (err) {
    expect(err).toBeInstanceOf(HookConfigError);
    expect((err as Error).message).toContain(SRC);
    return (err as HookConfigError).issues;
  }
  throw new Error("expected a HookConfigError");
}

describe("parseHooksConfig", () => {
  it("parses every supported shape", () => {
    const parsed = parseHooksConfig(
      {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "./check.sh", timeout: 5, statusMessage: "checking", if: "Bash(git *)" }] },
          { hooks: [{ type: "http", url: "http://127.0.0.1:9/h", headers: { Authorization: "Bearer ${TOKEN}" }, allowedEnvVars: ["TOKEN"] }] },
        ],
        SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "node", args: ["x.js"], once: true }] }],
        Stop: [{ hooks: [{ type: "command", command: "true", async: true }] }],
      },
      SRC,
    );
    expect(parsed.warnings).toEqual([]);
    expect(parsed.groups).toHaveLength(4);
    const [first, second, third, fourth] = parsed.groups;
    expect(first!.handlers[0]).toMatchObject({ type: "command", command: "./check.sh", timeoutSeconds: 5, if: "Bash(git *)", source: SRC, path: "hooks.PreToolUse[0].hooks[0]" });
    expect(first!.match("Bash")).toBe(true);
    expect(first!.match("Read")).toBe(false);
    expect(second!.handlers[0]).toMatchObject({ type: "http", url: "http://127.0.0.1:9/h", allowedEnvVars: ["TOKEN"] });
    expect(third!.handlers[0]).toMatchObject({ args: ["x.js"], once: true });
    expect(fourth!.handlers[0]).toMatchObject({ async: true });
  });

  it("undefined and null are an empty configuration", () => {
    expect(parseHooksConfig(undefined, SRC).groups).toEqual([]);
    expect(parseHooksConfig(null, SRC).groups).toEqual([]);
  });

  const bad: Array<[string, unknown, string, RegExp]> = [
    ["not an object", ["x"], "hooks", /object keyed by event name/],
    ["unknown event", { PreTool: [] }, "hooks.PreTool", /unknown hook event "PreTool"/],
    ["event in the wrong case", { pretooluse: [] }, "hooks.pretooluse", /did you mean PreToolUse\?/],
    ["event not an array", { PreToolUse: {} }, "hooks.PreToolUse", /array of \{matcher, hooks\}/],
    ["group without hooks", { PreToolUse: [{ matcher: "Bash" }] }, "hooks.PreToolUse[0].hooks", /array of hook handlers/],
    ["unknown group key", { PreToolUse: [{ matchers: "Bash", hooks: [] }] }, "hooks.PreToolUse[0].matchers", /unknown key/],
    ["matcher not a string", { PreToolUse: [{ matcher: 3, hooks: [] }] }, "hooks.PreToolUse[0].matcher", /must be a string/],
    ["invalid regex", { PreToolUse: [{ matcher: "Bash(", hooks: [] }] }, "hooks.PreToolUse[0].matcher", /not a valid JavaScript regular expression/],
    ["negative timeout", { PreToolUse: [{ hooks: [{ type: "command", command: "x" }, { type: "command", command: "y", timeout: -1 }] }] }, "hooks.PreToolUse[0].hooks[1].timeout", /positive number of seconds/],
    ["string timeout", { PostToolUse: [{ hooks: [{ type: "command", command: "y", timeout: "5" }] }] }, "hooks.PostToolUse[0].hooks[0].timeout", /number of seconds/],
    ["empty command", { PreToolUse: [{ hooks: [{ type: "command", command: "  " }] }] }, "hooks.PreToolUse[0].hooks[0].command", /must not be empty/],
    ["missing command", { PreToolUse: [{ hooks: [{ type: "command" }] }] }, "hooks.PreToolUse[0].hooks[0].command", /command to run/],
    ["missing type", { PreToolUse: [{ hooks: [{ command: "x" }] }] }, "hooks.PreToolUse[0].hooks[0].type", /"command" or "http"/],
    ["prompt hooks", { Stop: [{ hooks: [{ type: "prompt", prompt: "ok?" }] }] }, "hooks.Stop[0].hooks[0].type", /not supported by armature/],
    ["misspelled key", { PreToolUse: [{ hooks: [{ type: "command", command: "x", timout: 5 }] }] }, "hooks.PreToolUse[0].hooks[0].timout", /unknown key/],
    ["powershell", { PreToolUse: [{ hooks: [{ type: "command", command: "x", shell: "powershell" }] }] }, "hooks.PreToolUse[0].hooks[0].shell", /only "bash"/],
    ["http without url", { PreToolUse: [{ hooks: [{ type: "http" }] }] }, "hooks.PreToolUse[0].hooks[0].url", /http\(s\) URL/],
    ["http file url", { PreToolUse: [{ hooks: [{ type: "http", url: "file:///etc/passwd" }] }] }, "hooks.PreToolUse[0].hooks[0].url", /http:\/\/ or https:\/\//],
    ["bad env var name", { PreToolUse: [{ hooks: [{ type: "http", url: "http://x", allowedEnvVars: ["A-B"] }] }] }, "hooks.PreToolUse[0].hooks[0].allowedEnvVars[0]", /environment variable name/],
    ["http on SessionStart", { SessionStart: [{ hooks: [{ type: "http", url: "http://x" }] }] }, "hooks.SessionStart[0].hooks[0].type", /supports only "command" hooks/],
    ["bad if rule", { PreToolUse: [{ hooks: [{ type: "command", command: "x", if: "Bash(git *" }] }] }, "hooks.PreToolUse[0].hooks[0].if", /must end with '\)'/],
  ];
  it.each(bad)("%s: names the key path", (_name, config, path, message) => {
    const issues = issuesOf(config);
    const hit = issues.find((i) => i.path === path);
    expect(hit, JSON.stringify(issues)).toBeDefined();
    expect(hit!.message).toMatch(message);
  });

  it("reports every bad key at once", () => {
    const issues = issuesOf({
      Nope: [],
      PreToolUse: [{ hooks: [{ type: "command", command: "x", timeout: 0 }] }],
      Stop: [{ hooks: [{ type: "agent", prompt: "p" }] }],
    });
    expect(issues.map((i) => i.path)).toEqual(["hooks.Nope", "hooks.PreToolUse[0].hooks[0].timeout", "hooks.Stop[0].hooks[0].type"]);
  });

  it("Claude Code events armature does not fire, a matcher on a matcher-less event and `if` off tool events are warnings", () => {
    const parsed = parseHooksConfig(
      {
        FileChanged: [{ matcher: ".env", hooks: [{ type: "command", command: "x" }] }],
        UserPromptSubmit: [{ matcher: "Bash", hooks: [{ type: "command", command: "x" }] }],
        Stop: [{ hooks: [{ type: "command", command: "y", if: "Bash" }] }],
      },
      SRC,
    );
    expect(parsed.warnings).toEqual([
      `${SRC}: hooks.FileChanged: armature does not fire FileChanged; these hooks never run`,
      `${SRC}: hooks.UserPromptSubmit[0].matcher: UserPromptSubmit takes no matcher; it is ignored and the hooks run for every UserPromptSubmit`,
      `${SRC}: hooks.Stop[0].hooks[0].if: "if" applies to events about one tool call only; on Stop this handler never runs`,
    ]);
    expect(parsed.groups.map((g) => [g.event, g.handlers.length])).toEqual([["UserPromptSubmit", 1], ["Stop", 0]]);
  });
});
