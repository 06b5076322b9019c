import type { Session } from "./session.js";

/**
 * Calls (tool_use ids) a host's own approval flow put to a person — the AI SDK's
 * `needsApproval`, the Agents SDK's interruptions — kept per session, so a tool set built again
 * for the next request still knows them. Those SDKs run a call they marked only once a person
 * approved it: `settle(id)` on running says whether the call was one of them, and it is then
 * passed to `runTurn` as approved. A call never put to a person is never approved this way.
 */
export interface HostApprovals {
  putToPerson(toolUseId: string): void;
  /** Whether the call was put to a person (and so, being run, was approved); forgets it. */
  settle(toolUseId: string): boolean;
}

const bySession = new WeakMap<Session, Set<string>>();

export function hostApprovals(session: Session): HostApprovals {
  let ids = bySession.get(session);
  if (!ids) bySession.set(session, (ids = new Set()));
  const asked = ids;
  return { putToPerson: (id) => void asked.add(id), settle: (id) => asked.delete(id) };
}
