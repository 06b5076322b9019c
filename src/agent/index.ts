export { runAgent, runAgentToEnd } from "./run-agent.js";
export { runRound, type RoundOutput } from "./round.js";
export { buildSystemPrompt, type SystemPromptOptions } from "./system-prompt.js";
export { TranscriptWriter, TranscriptError, loadConversation, conversationFile, latestConversationId } from "./transcript.js";
export type { AgentEvent, AgentResult, AgentResultSubtype, AgentToolRunner, PermissionDenial, RunAgentOptions } from "./types.js";
export {
  createContextRunner,
  pipelineServicesOf,
  agentModelOf,
  PIPELINE_SERVICES_KEY,
  AGENT_MODEL_KEY,
  type AgentModelInfo,
  type ContextRunnerOptions,
} from "./context-runner.js";
export { providerSummarizer } from "./summarizer.js";
