/**
 * The reference CLI release whose SDK protocol `armature agent` speaks: the `claude_code_version`
 * of `system/init` and of the `initialize` reply. SDK hosts read it to tell which fields the
 * CLI understands (0.3.337 sends MCP servers in `initialize` to 2.1.326 and newer).
 */
export const CLAUDE_CODE_PROTOCOL_VERSION = "2.1.337";
