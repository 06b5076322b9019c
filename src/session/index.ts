export { createSession } from "./session.js";
export type { Session, SessionOptions, RunTurnOptions, TurnResult, SessionStreamEvent, SessionStreamInput, DynamicToolSource } from "./session.js";
export { parseSessionSnapshot, SnapshotError, SESSION_SNAPSHOT_VERSION, type SessionSnapshot, type TaskRecord } from "./snapshot.js";
export { openSessionDir, SessionDirError, STATE_FILE, LOCK_FILE, type SessionDirHandle } from "./state-dir.js";
export { closeSessionOnSignals, exitOnSignals, signalExitCode, type SignalExitOptions, type TerminationSignal } from "./signals.js";
