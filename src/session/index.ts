export { createSession } from "./session.js";
export type { Session, SessionOptions, RunTurnOptions, TurnResult, SessionStreamEvent, DynamicToolSource } from "./session.js";
