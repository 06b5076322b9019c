// Work a write leaves half done when the process exits in its middle (a signal handler's
// process.exit, an uncaught error elsewhere): the temp files it made, the old content of a file
// it was rewriting in place. Each write registers what undoes it, synchronously, and removes
// that once it is over; at exit what is left is undone. (kill -9 runs nothing: the folder's
// next sweep does it, see temp-name.ts.)

const pending = new Set<() => void>();
let installed = false;

/** Last registered first: a write's own undo before that of what it stands on (its journal). */
function runAll(): void {
  for (const undo of [...pending].reverse()) {
    pending.delete(undo);
    try {
      undo();
    } catch {
      // best effort: the process is going away
    }
  }
}

/** Runs `undo` (synchronous) if the process exits before the returned function is called. */
export function undoAtExit(undo: () => void): () => void {
  if (!installed) {
    installed = true;
    process.on("exit", runAll);
  }
  pending.add(undo);
  return () => {
    pending.delete(undo);
  };
}
