// Shared by the analysis target tables: one row is a command with the exact read and write
// targets it must report.
import { expect } from "vitest";
import { analyzeCommand } from "../src/shell/index.js";

export type Row = [command: string, reads: string[], writes: string[]];

const sorted = (a: readonly string[]): string[] => [...a].sort();

export function expectTargets(command: string, reads: string[], writes: string[]): void {
  const f = analyzeCommand(command);
  expect(sorted(f.readTargets), `reads of ${command}`).toEqual(sorted(reads));
  expect(sorted(f.writeTargets), `writes of ${command}`).toEqual(sorted(writes));
}
