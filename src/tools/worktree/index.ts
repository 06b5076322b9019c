export { createEnterWorktreeTool, createExitWorktreeTool, EnterWorktreeTool, ExitWorktreeTool, enterWorktreeInputSchema, exitWorktreeInputSchema } from "./worktree-tools.js";
export type { EnterWorktreeData, ExitWorktreeData } from "./worktree-tools.js";
export { createWorktree, removeWorktree, WORKTREES_DIR, type Worktree } from "../../worktrees/worktree.js";
