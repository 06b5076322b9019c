// The model-facing description of ToolSearch in the AI SDK 7 tool set (the SDK's own search tool,
// searching with armature's rules). It names the tools still deferred: the SDK's loop has no
// other place to tell the model they exist.

export function toolSearchDescription(deferred: readonly string[]): string {
  return `Makes more tools callable. These tools exist but their parameters have not been sent to you yet: ${deferred.join(", ")}.

Query with "select:NameA,NameB" to get tools by exact name, or with a few words describing the job to get the best matches (a word prefixed with + must appear in the tool's name). Tools that are found can be called from your next step on, with their full parameters. Fetch only what the task needs.`;
}
