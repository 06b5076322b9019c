import { realpath } from "node:fs/promises";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import { ToolUseError } from "../../tool/tool-use-error.js";
import type { Tool, ToolUseContext } from "../../tool/types.js";
import { commitsSince, gitRead, uncommittedFiles } from "../../worktrees/git.js";
import { activeWorktree, cleanUpOnClose, setActiveWorktree, worktreeLockReason, type WorktreeState } from "../../worktrees/state.js";
import {
  ALREADY_IN_WORKTREE,
  createdText,
  DISCARD_CHANGES_DESCRIPTION,
  ENTER_WORKTREE_DESCRIPTION,
  ENTER_WORKTREE_TOOL_NAME,
  enteredText,
  EXIT_ACTION_DESCRIPTION,
  EXIT_WORKTREE_DESCRIPTION,
  EXIT_WORKTREE_TOOL_NAME,
  keptText,
  leftWorktreeText,
  NO_WORKTREE_SESSION,
  refuseRemovalText,
  removedText,
  workDescription,
  WORKTREE_NAME_DESCRIPTION,
  WORKTREE_PATH_DESCRIPTION,
} from "./prompt.js";
import { createWorktree, invalidNameMessage, listWorktrees, randomWorktreeName, removeWorktree, unlockWorktree, validWorktreeName } from "../../worktrees/worktree.js";

/** The working directory and the project root both move: the worktree is the folder the tools may change. */
function workIn(projectDir: string, cwd: string): (context: ToolUseContext) => ToolUseContext {
  return (context) => ({ ...context, workspace: { projectDir, cwd } });
}

export const enterWorktreeInputSchema = z.strictObject({
  name: z.string().optional().describe(WORKTREE_NAME_DESCRIPTION),
  path: z.string().optional().describe(WORKTREE_PATH_DESCRIPTION),
});

export interface EnterWorktreeData {
  worktreePath: string;
  worktreeBranch: string;
  created: boolean;
}

export const exitWorktreeInputSchema = z.strictObject({
  action: z.enum(["keep", "remove"]).describe(EXIT_ACTION_DESCRIPTION),
  discard_changes: z.boolean().optional().describe(DISCARD_CHANGES_DESCRIPTION),
});

export interface ExitWorktreeData {
  action: "keep" | "remove";
  worktreePath: string;
  worktreeBranch: string;
  originalCwd: string;
  text: string;
}

export function createEnterWorktreeTool(): Tool<typeof enterWorktreeInputSchema, EnterWorktreeData> {
  return buildTool({
    name: ENTER_WORKTREE_TOOL_NAME,
    searchHint: "git worktree isolated checkout branch",
    inputSchema: enterWorktreeInputSchema,
    description: ENTER_WORKTREE_DESCRIPTION,
    shouldDefer: true,
    validateInput(input, context) {
      if (input.name !== undefined && !validWorktreeName(input.name)) {
        const issues = [{ code: "custom", message: invalidNameMessage(input.name), path: ["name"] }];
        return { result: false, message: `InputValidationError: ${JSON.stringify(issues, null, 2)}`, errorCode: "invalid_name" };
      }
      if (activeWorktree(context) && input.path === undefined) return { result: false, message: ALREADY_IN_WORKTREE, errorCode: "already_in_worktree" };
      return { result: true };
    },

    async call(input, context) {
      const before = activeWorktree(context);
      const back = before?.back ?? { projectDir: context.workspace.projectDir, cwd: context.workspace.cwd };
      let state: WorktreeState;
      if (input.path !== undefined) {
        let path: string;
        try {
          path = await realpath(input.path);
        } catch (err) {
          throw new Error(`Cannot enter worktree: ${input.path}: ${(err as Error).message}`);
        }
        const trees = await listWorktrees(context.workspace.cwd);
        if (!trees.has(path)) throw new Error(`Cannot enter worktree: ${path} is not a worktree of this repository (git worktree list names them).`);
        const base = await gitRead(["rev-parse", "HEAD"], path);
        const root = [...trees.keys()][0]!;
        state = { tree: { path, branch: trees.get(path)!, base: base.stdout.trim(), root }, created: false, back };
      } else {
        const tree = await createWorktree(context.workspace.cwd, input.name ?? randomWorktreeName(), worktreeLockReason(context.session.id));
        state = { tree, created: true, back };
        cleanUpOnClose(context, state);
      }
      // Switching away from a worktree this session made leaves it as it is, unlocked, for the user.
      if (before?.created && before.tree.path !== state.tree.path) await unlockWorktree(before.tree);
      setActiveWorktree(context, state);
      return {
        data: { worktreePath: state.tree.path, worktreeBranch: state.tree.branch, created: state.created },
        contextModifier: workIn(state.tree.path, state.tree.path),
      };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      const text = data.created ? createdText(data.worktreePath, data.worktreeBranch) : enteredText(data.worktreePath, data.worktreeBranch);
      return { type: "tool_result", tool_use_id: toolUseId, content: text };
    },
  });
}

export function createExitWorktreeTool(): Tool<typeof exitWorktreeInputSchema, ExitWorktreeData> {
  return buildTool({
    name: EXIT_WORKTREE_TOOL_NAME,
    searchHint: "leave git worktree keep remove",
    inputSchema: exitWorktreeInputSchema,
    description: EXIT_WORKTREE_DESCRIPTION,
    shouldDefer: true,
    // Going back changes nothing; removal refuses to lose work unless told to (discard_changes).
    checkPermissions: () => ({ behavior: "allow", reason: "ExitWorktree only leaves (or removes) the worktree this session made" }),
    validateInput(_input, context) {
      if (!activeWorktree(context)) return { result: false, message: NO_WORKTREE_SESSION, errorCode: "no_worktree_session" };
      return { result: true };
    },

    async call(input, context) {
      const state = activeWorktree(context)!;
      const { tree, back } = state;
      let text: string;
      if (input.action === "keep" || !state.created) {
        if (state.created) await unlockWorktree(tree);
        text = state.created ? keptText(tree.path, tree.branch, back.cwd) : leftWorktreeText(tree.path, back.cwd);
      } else {
        const work = workDescription(await uncommittedFiles(tree.path), await commitsSince(tree.path, tree.base));
        if (work !== "" && input.discard_changes !== true) throw new ToolUseError(refuseRemovalText(work));
        await removeWorktree(tree);
        text = removedText(tree.path, work, back.cwd);
      }
      setActiveWorktree(context, undefined);
      return {
        data: { action: input.action, worktreePath: tree.path, worktreeBranch: tree.branch, originalCwd: back.cwd, text },
        contextModifier: workIn(back.projectDir, back.cwd),
      };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      return { type: "tool_result", tool_use_id: toolUseId, content: data.text };
    },
  });
}

export const EnterWorktreeTool = createEnterWorktreeTool();
export const ExitWorktreeTool = createExitWorktreeTool();
