import { describe, expect, it } from "vitest";
import { sub } from "../../test/permission-helpers.js";
import { bashMatcher, narrowedBashRule } from "../shell/bash-rules.js";
import { hostMatches, ruleHostPattern, urlHost } from "./domain-rules.js";
import { pathMatches, pathPattern } from "./path-rules.js";
import { parseRule } from "./rule.js";
import { criticalRemoval, protectedPathReason } from "./safety.js";

describe("bashMatcher", () => {
  it.each([
    ["ls *", "ls", true],
    ["ls *", "ls -la", true],
    ["ls *", "lsof", false],
    ["ls*", "lsof", true],
    ["npm run test:*", "npm run test", true],
    ["npm run test:*", "npm run test -- x", true],
    ["npm run test:*", "npm run testx", false],
    ["git  commit   *", "git commit -m x", true],
    ["npm run build", "npm run build", true],
    ["npm run build", "npm run build --prod", false],
    ["git * main", "git push origin main", true],
    ["a:b", "a:b", true],
    ["*", "anything at all", true],
  ])("Bash(%s) vs %j → %s", (spec, text, expected) => {
    expect(bashMatcher(spec)(text)).toBe(expected);
  });
});

describe("hosts", () => {
  it.each([
    ["https://Example.COM./x", "example.com"],
    ["https://a@b.com@evil.io/", "evil.io"],
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://[::ffff:127.0.0.1]/", "127.0.0.1"],
    ["https://bücher.de/", "xn--bcher-kva.de"],
    ["ftp://example.com/", null],
    ["nonsense", null],
  ])("urlHost(%s) = %s", (url, host) => {
    expect(urlHost(url)).toBe(host);
  });
  it.each([
    ["domain:*.example.com", "a.b.example.com", true],
    ["domain:*.example.com", "example.com", false],
    ["domain:*.example.com", "badexample.com", false],
    ["domain:api-*.example.com", "api-v2.example.com", true],
    ["domain:api-*.example.com", "api-v2.evil.example.com", false],
    ["domain:bücher.de", "xn--bcher-kva.de", true],
    ["domain:*", "anything.io", true],
  ])("%s vs %s → %s", (spec, host, expected) => {
    expect(hostMatches(ruleHostPattern(spec)!, host)).toBe(expected);
  });
});

describe("path patterns", () => {
  const cwd = "/p";
  const home = "/h";
  const m = (raw: string, behavior: "allow" | "deny", path: string) => {
    const rule = parseRule(raw, behavior, "f", "/root");
    return pathMatches(pathPattern(rule, cwd, home), path, behavior !== "allow");
  };
  it.each([
    ["Read(//etc/**)", "deny", "/etc/passwd", true],
    ["Read(//etc)", "deny", "/etc/ssh/x", true],
    ["Read(~/.ssh/**)", "deny", "/h/.ssh/id", true],
    ["Read(/cfg/*.json)", "deny", "/root/cfg/a.json", true],
    ["Read(/cfg/*.json)", "deny", "/p/cfg/a.json", false],
    ["Read(.env)", "deny", "/p/a/b/.env", true],
    ["Read(.env)", "deny", "/elsewhere/.env", false],
    ["Read(*.key)", "deny", "/p/x/y.KEY", true],
    ["Read(src/**)", "deny", "/p/pkg/src/a.ts", true],
    ["Read(src/**)", "allow", "/p/pkg/src/a.ts", false],
    ["Read(src/**)", "allow", "/p/src/a.ts", true],
    ["Read(./.env)", "deny", "/p/sub/.env", false],
    ["Read(docs/*.md)", "deny", "/p/docs/a/b.md", false],
    ["Read(docs/**/*.md)", "deny", "/p/docs/a/b.md", true],
    ["Read(//proj)", "deny", "/proj-evil/x", false],
    ["Read(//proj/**)", "allow", "/PROJ/x", false],
  ])("%s (%s) vs %s → %s", (raw, behavior, path, expected) => {
    expect(m(raw, behavior as "allow" | "deny", path)).toBe(expected);
  });
});

describe("safety", () => {
  it.each([
    ["/p/.git/config", true],
    ["/p/sub/.Git/hooks/x", true],
    ["/p/.claude/worktrees/a", false],
    ["/p/.claude/settings.json", true],
    ["/h/.config/git/config", true],
    ["/p/.bashrc", true],
    ["/p/src/gitconfig.ts", false],
    ["/p/.gitignore", false],
  ])("protected %s → %s", (path, expected) => {
    expect(protectedPathReason(path) !== null).toBe(expected);
  });
  const ctx = { cwd: "/w/proj", projectDir: "/w/proj", home: "/home/u", additionalDirectories: [] };
  it.each([
    ["rm -rf /", true],
    ["rm -rf /usr", true],
    ["rm -rf ~", true],
    ["rm -rf ..", true],
    ["rm -rf /w", true],
    ["rm -rf *", true],
    ["rm -rf $DIR/*", true],
    ["rmdir /tmp", true],
    ["rm -rf build", false],
    ["rm -f /tmp/x.log", false],
    ["ls /", false],
  ])("critical %s → %s", (text, expected) => {
    expect(criticalRemoval(sub(text), ctx) !== null).toBe(expected);
  });
});

describe("narrowed rules", () => {
  it.each([
    ["npm run test -- --watch", "Bash(npm run test *)"],
    ["git commit -m x", "Bash(git commit *)"],
    ["ls -la", "Bash(ls *)"],
    ["make", "Bash(make *)"],
    ["./scripts/build.sh --fast", "Bash(./scripts/build.sh *)"],
    ["cargo build --release", "Bash(cargo build *)"],
  ])("%s → %s", (text, rule) => {
    expect(narrowedBashRule(sub(text))).toBe(rule);
  });
  it("uses what runs under a wrapper", () => {
    expect(narrowedBashRule(sub("timeout 5 npm test", { effective: "npm test" }))).toBe("Bash(npm test *)");
  });
});
