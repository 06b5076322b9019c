// Runs generated sed, awk and jq programs through the real interpreters in throwaway
// directories with sentinels, and checks every program the tokenizer calls safe:
// - no execution: a `pwn` program first in PATH appends to a log outside the directory, and
//   the inputs make every exec form (`e`, `s///e`, `system`, pipes) run `pwn`;
// - no write: the directory's files (names, sizes, contents) are the same afterwards;
// - no unreported read: `secret.txt` holds a marker; when the marker reaches the output, the
//   tokenizer must have reported `secret.txt` as a read;
// - jq: no module loading: the library path holds poisoned modules whose loading shows in
//   the output (a syntax error naming the file, or a module lookup failing).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { awkProgramObjection } from "../src/shell/lang/awk.js";
import { jqProgramObjection } from "../src/shell/lang/jq.js";
import { sedScriptObjection } from "../src/shell/lang/sed.js";
import { awkProgram, jqProgram, rng, sedProgram } from "./lang-programs.js";

export type Language = "sed" | "mawk" | "gawk" | "jq";

export interface Finding {
  program: string;
  interpreter: Language;
  what: string;
}

export interface Figures {
  generated: number;
  /** Programs the tokenizer calls safe. */
  safe: number;
  /** Interpreter runs made. */
  runs: number;
  /** Flagged programs whose run really executed, wrote or read something (the generator reaches real attacks). */
  flaggedWithEffect: number;
  violations: Finding[];
}

const SECRET = "SECRET-MARKER-7f3a";
const INPUTS: Record<string, string> = {
  "in.txt": "pwn a/b\npwn x\npwn\nA b c\n",
  "secret.txt": `${SECRET}\n`,
  "in.json": '{"a": 1, "x": 2, "items": [{"name": "n"}]}\n',
};

export function available(tool: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).status === 0;
}

export class Sandbox {
  readonly root = mkdtempSync(join(tmpdir(), "armature-lang-"));
  private readonly bin = join(this.root, "bin");
  private readonly lib = join(this.root, "lib");
  private n = 0;

  constructor() {
    mkdirSync(this.bin);
    mkdirSync(this.lib);
    mkdirSync(join(this.root, "logs"));
    const script = '#!/bin/sh\necho "$0 $*" >> "$PWN_LOG"\n';
    for (const name of ["pwn", "id"]) {
      writeFileSync(join(this.bin, name), script);
      chmodSync(join(this.bin, name), 0o755);
    }
    writeFileSync(join(this.lib, "m.jq"), 'module {"marker": "POISON-META"};\ndef f: "POISON-DEF";\nPOISON_SYNTAX((\n');
    writeFileSync(join(this.lib, "d.json"), "POISON-DATA[");
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  private snapshot(dir: string): string {
    return readdirSync(dir)
      .sort()
      .map((f) => {
        const p = join(dir, f);
        const st = statSync(p);
        return `${f}:${st.size}:${st.isFile() ? readFileSync(p, "latin1") : "dir"}`;
      })
      .join("\n");
  }

  /** Runs one program; resolves to the effects it really had. */
  async run(interpreter: Language, program: string): Promise<string[]> {
    const id = this.n++;
    const dir = join(this.root, `w${id}`);
    const log = join(this.root, "logs", `w${id}.log`);
    mkdirSync(dir);
    for (const [f, text] of Object.entries(INPUTS)) writeFileSync(join(dir, f), text);
    const before = this.snapshot(dir);
    const args =
      interpreter === "sed" ? ["-n", program, "in.txt"] : interpreter === "jq" ? ["-L", this.lib, program, "in.json"] : [program, "in.txt"];
    const child = spawn(interpreter, args, {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: `${this.bin}:/usr/bin:/bin`, HOME: dir, LC_ALL: "C", PWN_LOG: log },
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (output += d.toString("utf8")));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, 10_000);
    await new Promise<void>((resolve) => child.on("close", () => resolve()));
    clearTimeout(timer);
    const effects: string[] = [];
    if (existsSync(log)) effects.push("executed a command");
    if (this.snapshot(dir) !== before) effects.push("changed files in its directory");
    if (output.includes(SECRET)) effects.push("read secret.txt");
    if (interpreter === "jq" && /POISON|module not found|\/lib\//.test(output)) effects.push("loaded a module");
    if (timedOut) effects.push("timed out");
    rmSync(dir, { recursive: true, force: true });
    return effects;
  }
}

interface Verdict {
  safe: boolean;
  reads: string[];
}

function verdict(language: "sed" | "awk" | "jq", program: string): Verdict {
  const files = { writes: [] as string[], reads: [] as string[] };
  if (language === "sed") return { safe: sedScriptObjection(program, files) === undefined, reads: files.reads };
  if (language === "awk") return { safe: awkProgramObjection(program, files) === undefined, reads: files.reads };
  return { safe: jqProgramObjection(program) === undefined, reads: [] };
}

/**
 * Generates `count` programs of `language` from `seed` and runs them, a few at a time. Safe
 * programs all run; of the flagged ones, every `flaggedEvery`-th runs too (to show the attacks
 * are real).
 */
export async function differential(
  sandbox: Sandbox, language: "sed" | "awk" | "jq", interpreters: Language[], seed: number, count: number, flaggedEvery = 4, parallel = 4,
): Promise<Figures> {
  const r = rng(seed);
  const make = language === "sed" ? sedProgram : language === "awk" ? awkProgram : jqProgram;
  const figures: Figures = { generated: 0, safe: 0, runs: 0, flaggedWithEffect: 0, violations: [] };
  const jobs: Array<() => Promise<void>> = [];
  for (let k = 0; k < count; k++) {
    const program = make(r);
    figures.generated++;
    const v = verdict(language, program);
    if (v.safe) figures.safe++;
    else if (k % flaggedEvery !== 0) continue;
    for (const interpreter of interpreters) {
      jobs.push(async () => {
        figures.runs++;
        const effects = await sandbox.run(interpreter, program);
        // A read the tokenizer reported is for the permission engine to judge, not a violation.
        const unreported = effects.filter((e) => !(e === "read secret.txt" && v.reads.includes("secret.txt")));
        if (!v.safe) {
          if (effects.length > 0) figures.flaggedWithEffect++;
        } else for (const what of unreported) figures.violations.push({ program, interpreter, what });
      });
    }
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) await (jobs[next++] as () => Promise<void>)();
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return figures;
}
