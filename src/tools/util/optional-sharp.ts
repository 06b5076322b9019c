// sharp (libvips, ~20 MB native) is an optional dependency: only downscaling and re-encoding
// images needs it. Without it an image that already fits is still shown as it is.
import type { ImageMediaType } from "../../tool/types.js";

type Sharp = typeof import("sharp").default;

let loading: Promise<Sharp | Error> | undefined;

/** sharp, or the reason it cannot be loaded (not installed, or its native part missing). */
export function loadSharp(): Promise<Sharp | Error> {
  loading ??= import("sharp").then(
    (m) => m.default,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  return loading;
}

/** What to tell the model when an image needs sharp and it is not there. */
export function sharpMissingMessage(what: string, reason: Error): string {
  const missing = (reason as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND";
  return `${what} needs downscaling, which needs the optional package sharp, and sharp ${missing ? "is not installed" : `could not be loaded (${reason.message.split("\n")[0]})`}. Ask the user to run \`npm install sharp\`, or look at a smaller version of the image.`;
}

/** Width and height from an image's header (png, gif, jpeg, webp), without decoding it. */
export function headerDimensions(bytes: Buffer, type: ImageMediaType): { width: number; height: number } | undefined {
  try {
    if (type === "image/png") return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
    if (type === "image/gif") return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
    if (type === "image/webp") return webpDimensions(bytes);
    return jpegDimensions(bytes);
  } catch {
    return undefined; // truncated header
  }
}

function webpDimensions(b: Buffer): { width: number; height: number } | undefined {
  const chunk = b.toString("latin1", 12, 16);
  if (chunk === "VP8X") return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === "VP8L") {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === "VP8 ") return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  return undefined;
}

function jpegDimensions(b: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    // SOF0–SOF15, less DHT (c4), JPG (c8) and DAC (cc): the frame header with the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: b.readUInt16BE(at + 7), height: b.readUInt16BE(at + 5) };
    }
    at += 2 + b.readUInt16BE(at + 2);
  }
  return undefined;
}
