// What the session's background work has to tell the model between runs of the AI SDK's loop.
// Inside a run, a call's result already carries what ended before it finished (see
// `AiSdkToolOutput.newMessages`); these are the ends that came while no call was running.
import type { ModelMessage } from "ai";
import { pendingNotifications } from "../session/session.js";
import type { Session } from "../session/session.js";
import { taskRegistry, untilSettled } from "../tasks/registry.js";

export interface AiSdkNotifications extends AsyncIterable<ModelMessage> {
  /**
   * The notifications of the session's background tasks (commands, background agents) that ended
   * and that the model has not been told of, as user messages to add after the run's
   * `response.messages`. Taking them marks them told: no later tool result repeats them.
   */
  take(): ModelMessage[];
  /**
   * What `armature agent` waits for before it ends a run: the background agents and the commands
   * whose end the model was promised (moved to the background at their timeout). Resolves when
   * they have all ended (or at once when none runs, or when `signal` aborts) with `take()`.
   * Other background commands (a dev server) are not waited for.
   */
  wait(options?: { signal?: AbortSignal }): Promise<ModelMessage[]>;
  /**
   * The next notifications: at once when some are pending, else when one of the session's
   * background tasks ends. Resolves to [] when no task is running (nothing will come) or when
   * `signal` aborts. Iterating the object yields them one by one until then. Call it while no run
   * is under way: during a run, an end goes into the next call's result instead.
   */
  next(options?: { signal?: AbortSignal }): Promise<ModelMessage[]>;
}

/** The session's background-task notifications for a host that drives the loop with the AI SDK. */
export function aiSdkNotifications(session: Session): AiSdkNotifications {
  // Created now (it would be on the first background call) so that ends can be listened for.
  const registry = taskRegistry(session.context);
  const mine = (): string | undefined => session.context.agent.agentId;
  const take = (): ModelMessage[] => pendingNotifications(session.context).map((m) => ({ role: "user", content: m.content as string }));
  async function next(options: { signal?: AbortSignal } = {}): Promise<ModelMessage[]> {
    for (;;) {
      const pending = take();
      if (pending.length > 0 || options.signal?.aborted) return pending;
      if (!registry.running().some((t) => t.ownerAgentId === mine())) return [];
      let stop!: () => void;
      const ended = new Promise<void>((resolve) => (stop = registry.onEnd((t) => t.ownerAgentId === mine() && resolve())));
      try {
        await untilSettled(ended, { signal: options.signal });
      } finally {
        stop();
      }
    }
  }

  return {
    take,
    next,
    async wait(options = {}) {
      const promised = registry.promised(mine());
      if (promised.length > 0) await untilSettled(Promise.all(promised.map((t) => t.done)), { signal: options.signal });
      return take();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const batch = await next();
        if (batch.length === 0) return;
        yield* batch;
      }
    },
  };
}
