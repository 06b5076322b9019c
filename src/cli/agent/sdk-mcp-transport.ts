import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ControlChannel } from "./control-channel.js";

/**
 * An MCP transport to a server that lives in the SDK host's process (`createSdkMcpServer`):
 * each JSON-RPC message travels as an `mcp_message` control request, and a request's answer
 * comes back as the control response's `mcp_response`. armature's own MCP client runs on top,
 * so these tools get the same validation, permissions, hooks and result mapping as any server.
 */
export class ControlMcpTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;

  constructor(
    private readonly channel: ControlChannel,
    private readonly serverName: string,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`MCP server ${this.serverName}: the transport is closed`);
    const isRequest = "method" in message && "id" in message;
    // Not awaited: the client registered its response handler before sending, and a slow tool
    // call must not hold up the next message.
    this.channel.request({ subtype: "mcp_message", server_name: this.serverName, message }).then(
      (answer) => {
        const response = answer.mcp_response as JSONRPCMessage | undefined;
        if (isRequest && response !== undefined && !this.closed) this.onmessage?.(response);
      },
      (err: unknown) => {
        if (this.closed) return;
        const error = err instanceof Error ? err : new Error(String(err));
        if (isRequest) {
          // The request fails with the host's reason rather than waiting for its timeout.
          this.onmessage?.({ jsonrpc: "2.0", id: (message as { id: string | number }).id, error: { code: -32603, message: error.message } });
        } else this.onerror?.(error);
      },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
