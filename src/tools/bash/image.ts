import type { ImageBlock, ImageMediaType } from "../../tool/types.js";
import { loadSharp } from "../util/optional-sharp.js";
import { imageTypeOf } from "./output.js";

/** Base64 of at most 5 MB is what the API takes for one image. */
const MAX_INLINE_IMAGE_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);
const MAX_DIMENSION = 2000;

export interface ImageOutput {
  mediaType: ImageMediaType;
  base64: string;
}

/** Raw image bytes, or a `data:image/…;base64,…` URI, as the bytes and type of one image. */
export function parseImageOutput(stdout: Buffer): { bytes: Buffer; mediaType: ImageMediaType } | undefined {
  const type = imageTypeOf(stdout);
  if (type) return { bytes: stdout, mediaType: type };
  const text = stdout.toString("latin1").trim();
  const match = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/=\s]+)$/.exec(text);
  if (!match) return undefined;
  const bytes = Buffer.from(match[2]!.replace(/\s+/g, ""), "base64");
  const real = imageTypeOf(bytes);
  return real ? { bytes, mediaType: real } : undefined;
}

/**
 * The image as the model may receive it: as is when small enough, else scaled down and
 * re-encoded as JPEG. Undefined when it cannot be made to fit (the caller shows text instead).
 */
export async function toImageOutput(image: { bytes: Buffer; mediaType: ImageMediaType }): Promise<ImageOutput | undefined> {
  if (image.bytes.length <= MAX_INLINE_IMAGE_BYTES) return { mediaType: image.mediaType, base64: image.bytes.toString("base64") };
  const sharp = await loadSharp();
  if (sharp instanceof Error) return undefined; // the caller shows text instead
  try {
    for (const quality of [80, 60, 40]) {
      const out = await sharp(image.bytes)
        .resize({ width: MAX_DIMENSION, height: MAX_DIMENSION, fit: "inside", withoutEnlargement: true })
        .jpeg({ quality })
        .toBuffer();
      if (out.length <= MAX_INLINE_IMAGE_BYTES) return { mediaType: "image/jpeg", base64: out.toString("base64") };
    }
  } catch {
    // not a decodable image after all
  }
  return undefined;
}

export function imageBlock(image: ImageOutput): ImageBlock {
  return { type: "image", source: { type: "base64", media_type: image.mediaType, data: image.base64 } };
}
