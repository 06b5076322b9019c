export const TOOL_SEARCH_TOOL_NAME = "ToolSearch";

export const TOOL_SEARCH_DESCRIPTION = `Loads the schemas of deferred tools so that you can call them.

Some tools are listed only by name (see the deferred tools message): their parameters are not known to you until you load them with this tool. Calling one without loading it usually fails input validation.

Two ways to query:
- "select:Name1,Name2" loads exactly the tools named (use the names from the deferred list).
- Keywords (e.g. "github issue", "notebook") rank deferred tools by their name, server name, search hints and description, and load the best matches. Prefix a word with + to require it in the tool's name ("+slack send").

The loaded tools become callable from your next step, with their full schemas. Load only what the task needs; max_results (default 5) caps a keyword search.`;

export const QUERY_DESCRIPTION = 'Either "select:<tool name>[,<tool name>...]" for exact names, or keywords to search tool names and descriptions';
export const MAX_RESULTS_DESCRIPTION = "At most this many tools are loaded by a keyword search (default 5)";

export const NO_MATCHES = "No matching deferred tools found";
