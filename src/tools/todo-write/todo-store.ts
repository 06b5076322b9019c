import type { ToolUseContext } from "../../tool/types.js";

export type TodoStatus = "pending" | "in_progress" | "completed";

export interface TodoItem {
  content: string;
  status: TodoStatus;
  activeForm: string;
}

export interface TodoChange {
  /** The agent whose list changed (`main` for the top-level agent). */
  agentId: string;
  oldTodos: TodoItem[];
  newTodos: TodoItem[];
}

const MAIN_AGENT = "main";
const STORE_KEY = "armature.todos";

/**
 * The todo lists of a session, one per agent. A list whose items are all completed is cleared
 * once it has been reported, so the next write starts from an empty list (as the reference does).
 */
export class TodoStore {
  private readonly lists = new Map<string, TodoItem[]>();
  private readonly listeners = new Set<(change: TodoChange) => void>();

  /** The current list of an agent (the main agent's by default); a copy. */
  get(agentId: string = MAIN_AGENT): TodoItem[] {
    return (this.lists.get(agentId) ?? []).map((t) => ({ ...t }));
  }

  /** Every agent's list. */
  all(): Map<string, TodoItem[]> {
    return new Map([...this.lists].map(([id, list]) => [id, list.map((t) => ({ ...t }))]));
  }

  /** Calls `listener` on every change; returns the function that removes it. */
  onChange(listener: (change: TodoChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Replaces an agent's list; returns what it was and what it is now. */
  set(agentId: string | undefined, todos: readonly TodoItem[]): TodoChange {
    const id = agentId ?? MAIN_AGENT;
    const oldTodos = this.get(id);
    const newTodos = todos.map((t) => ({ ...t }));
    const allDone = newTodos.length > 0 && newTodos.every((t) => t.status === "completed");
    this.lists.set(id, allDone ? [] : newTodos);
    const change: TodoChange = { agentId: id, oldTodos, newTodos };
    for (const listener of this.listeners) {
      try {
        listener({ agentId: id, oldTodos: oldTodos.map((t) => ({ ...t })), newTodos: newTodos.map((t) => ({ ...t })) });
      } catch {
        // A listener's failure is the host's; it never fails the model's call.
      }
    }
    return change;
  }
}

/** The session's todo store (created on first use; shared with sub-agents, keyed by agent id). */
export function todoStore(context: ToolUseContext): TodoStore {
  let store = context.extensions.get(STORE_KEY);
  if (!(store instanceof TodoStore)) {
    store = new TodoStore();
    context.extensions.set(STORE_KEY, store);
  }
  return store as TodoStore;
}
