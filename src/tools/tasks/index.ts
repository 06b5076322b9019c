export { findTaskRegistry, taskRegistry, TaskRegistry, TASK_REGISTRY_KEY, type BackgroundTask, type TaskStatus } from "../../tasks/registry.js";
