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
    done();
  },
  (err) => {
    process.stderr.write(`armature: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
    done();
  },
);

// The command has ended: an input its host still holds open (the Agent SDK keeps its pipe until
// the process exits) must not keep the process alive.
function done() {
  process.stdin.destroy();
}
