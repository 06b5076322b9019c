import type { ImageBlock, ImageMediaType, TextBlock, ToolResultBlock } from "../tool/types.js";

/** What an MCP server answered to tools/call (the SDK has checked its shape). */
export interface McpCallResult {
  content?: Array<Record<string, unknown>>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

const IMAGE_TYPES = new Set<ImageMediaType>(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function approxBytes(base64: string): number {
  return Math.round((base64.length * 3) / 4);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function imageOrNote(data: string, mimeType: string | undefined, what: string): TextBlock | ImageBlock {
  if (mimeType && IMAGE_TYPES.has(mimeType as ImageMediaType)) {
    return { type: "image", source: { type: "base64", media_type: mimeType as ImageMediaType, data } };
  }
  return { type: "text", text: `[${what}: ${mimeType ?? "unknown type"}, ${approxBytes(data)} bytes; not shown: the model API takes only PNG, JPEG, GIF and WebP images]` };
}

/** One MCP content item as tool_result content. */
export function mapContentItem(item: Record<string, unknown>): TextBlock | ImageBlock {
  switch (item.type) {
    case "text":
      return { type: "text", text: str(item.text) ?? "" };
    case "image":
      return imageOrNote(str(item.data) ?? "", str(item.mimeType), "image");
    case "audio":
      return { type: "text", text: `[audio: ${str(item.mimeType) ?? "unknown type"}, ${approxBytes(str(item.data) ?? "")} bytes; audio cannot be passed to the model]` };
    case "resource_link": {
      const parts = [`Resource link: ${str(item.name) ?? str(item.uri) ?? ""} <${str(item.uri) ?? ""}>`];
      if (str(item.mimeType)) parts.push(`(${str(item.mimeType)})`);
      if (str(item.description)) parts.push(`— ${str(item.description)}`);
      return { type: "text", text: parts.join(" ") };
    }
    case "resource": {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      const uri = str(resource.uri) ?? "";
      if (typeof resource.text === "string") return { type: "text", text: `Resource <${uri}>${resource.mimeType ? ` (${String(resource.mimeType)})` : ""}:\n${resource.text}` };
      if (typeof resource.blob === "string") return imageOrNote(resource.blob, str(resource.mimeType), `resource <${uri}>`);
      return { type: "text", text: `[resource <${uri}> without content]` };
    }
    default:
      return { type: "text", text: `[content of unknown type ${JSON.stringify(item.type)}]` };
  }
}

/**
 * tools/call result → tool_result, as the reference does: `structuredContent` is sent as its
 * JSON text (the content items are then not sent), `isError` → `is_error` with the text as is
 * (no <tool_use_error> wrapper), otherwise the content items as blocks. Structured content whose
 * JSON is longer than `prettyPast` characters is pretty-printed: it will be saved to a file, and
 * a file of one line cannot be read with Read's offset and limit.
 */
export function mapMcpResult(result: McpCallResult, toolUseId: string, prettyPast = Infinity): ToolResultBlock {
  const items = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const blocks = items.map(mapContentItem);
    const text = blocks.every((b) => b.type === "text") ? blocks.map((b) => (b as TextBlock).text).join("\n") : undefined;
    return { type: "tool_result", tool_use_id: toolUseId, content: text ?? blocks, is_error: true };
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    const json = JSON.stringify(result.structuredContent);
    return { type: "tool_result", tool_use_id: toolUseId, content: json.length > prettyPast ? JSON.stringify(result.structuredContent, null, 2) : json };
  }
  if (items.length === 0) return { type: "tool_result", tool_use_id: toolUseId, content: "(the tool returned no content)" };
  return { type: "tool_result", tool_use_id: toolUseId, content: items.map(mapContentItem) };
}
