// Every attack string must come out not read-only (and extract what deny rules need); every
// control must stay read-only.
import { describe, expect, it } from "vitest";
import { ATTACKS, BENIGN } from "./corpus.js";
import { analyzeCommand } from "./index.js";

const label = (s: string): string => JSON.stringify(s.length > 80 ? s.slice(0, 77) + "..." : s);

describe("attack corpus: never read-only", () => {
  it("has at least 150 attacks and 50 controls", () => {
    expect(ATTACKS.length).toBeGreaterThanOrEqual(150);
    expect(BENIGN.length).toBeGreaterThanOrEqual(50);
  });

  it.each(ATTACKS.map((a) => [label(a.command), a] as const))("%s", (_label, attack) => {
    const facts = analyzeCommand(attack.command);
    expect(facts.readOnly, `source: ${attack.source}`).toBe(false);
    expect(facts.reasons.length).toBeGreaterThan(0);
    const seen = new Set(facts.subcommands.flatMap((s) => [s.text, s.effective]));
    for (const text of attack.sees ?? []) expect([...seen]).toContain(text);
    for (const path of attack.writes ?? []) expect(facts.writeTargets).toContain(path);
    for (const path of attack.reads ?? []) expect(facts.readTargets).toContain(path);
    if (attack.incomplete) expect(facts.complete).toBe(false);
  });
});

describe("benign controls: read-only", () => {
  it.each(BENIGN.map((b) => [label(b.command), b] as const))("%s", (_label, control) => {
    const facts = analyzeCommand(control.command);
    expect(facts.reasons).toEqual([]);
    expect(facts.readOnly).toBe(true);
    expect(facts.complete).toBe(true);
  });
});
