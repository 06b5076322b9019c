#!/usr/bin/env node
import { main } from "../dist/bundle/cli.js";

// A reader that goes away (`armature exec … | head`) is not an error of ours.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`armature: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
