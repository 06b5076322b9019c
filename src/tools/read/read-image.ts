import { readFile } from "node:fs/promises";
import type { ImageMediaType } from "../../tool/types.js";
import { imageTypeOf } from "../bash/output.js";
import { headerDimensions, loadSharp, sharpMissingMessage } from "../util/optional-sharp.js";

export const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp"]);
/** Longest side sent to the model. */
export const MAX_IMAGE_DIMENSION = 2000;
/** Base64 of at most ~5 MB: raw bytes at most this. */
export const MAX_IMAGE_BYTES = 3_750_000;
const MAX_SOURCE_BYTES = 50 * 1024 * 1024;

export interface ImageReadData {
  type: "image";
  file: {
    filePath: string;
    base64: string;
    type: ImageMediaType;
    originalSize: number;
    dimensions: { originalWidth: number; originalHeight: number; displayWidth: number; displayHeight: number };
  };
}

const MEDIA: Record<string, ImageMediaType> = { png: "image/png", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/**
 * An image as a base64 image block: the original bytes when small enough, else downscaled to
 * fit MAX_IMAGE_DIMENSION and re-encoded (JPEG at falling quality when still too large).
 */
export async function readImage(path: string, size: number): Promise<ImageReadData> {
  if (size > MAX_SOURCE_BYTES) throw new Error(`This image is too large to read (${Math.round(size / 1024 / 1024)} MiB; the limit is 50 MiB).`);
  // Loaded on first use: sharp's native library is large, and most sessions read no image.
  const sharp = await loadSharp();
  const bytes = await readFile(path);
  if (sharp instanceof Error) return readImageAsIs(path, size, bytes, sharp);
  let meta;
  try {
    meta = await sharp(bytes).metadata();
  } catch {
    throw new Error(`${path} has an image extension but is not a readable image (damaged, or another format).`);
  }
  const format: string | undefined = meta.format;
  const media = format ? MEDIA[format] : undefined;
  if (!media) throw new Error(`${path} is a ${format ?? "unknown"} image; Read shows png, jpeg, gif and webp images.`);
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const dims = { originalWidth: width, originalHeight: height, displayWidth: width, displayHeight: height };
  const file = (data: Buffer, type: ImageMediaType): ImageReadData => ({
    type: "image",
    file: { filePath: path, base64: data.toString("base64"), type, originalSize: size, dimensions: dims },
  });
  if (bytes.length <= MAX_IMAGE_BYTES && width <= MAX_IMAGE_DIMENSION && height <= MAX_IMAGE_DIMENSION) return file(bytes, media);

  const resized = sharp(bytes).rotate().resize(MAX_IMAGE_DIMENSION, MAX_IMAGE_DIMENSION, { fit: "inside", withoutEnlargement: true });
  const outFormat = format === "gif" ? "png" : format;
  let out = await resized.clone().toFormat(outFormat as "png" | "jpeg" | "webp").toBuffer({ resolveWithObject: true });
  let outMedia = MEDIA[outFormat]!;
  for (const quality of [80, 60, 40]) {
    if (out.data.length <= MAX_IMAGE_BYTES) break;
    out = await resized.clone().jpeg({ quality }).toBuffer({ resolveWithObject: true });
    outMedia = "image/jpeg";
  }
  if (out.data.length > MAX_IMAGE_BYTES) throw new Error(`This image is still over ${MAX_IMAGE_BYTES} bytes after downscaling; it cannot be shown.`);
  dims.displayWidth = out.info.width;
  dims.displayHeight = out.info.height;
  return file(out.data, outMedia);
}

/** Without sharp: an image that already fits is sent as it is; one that would need downscaling is refused, saying why. */
function readImageAsIs(path: string, size: number, bytes: Buffer, reason: Error): ImageReadData {
  const media = imageTypeOf(bytes);
  if (!media) throw new Error(`${path} has an image extension but is not a png, jpeg, gif or webp image (damaged, or another format).`);
  const dims = headerDimensions(bytes, media);
  if (!dims || bytes.length > MAX_IMAGE_BYTES || dims.width > MAX_IMAGE_DIMENSION || dims.height > MAX_IMAGE_DIMENSION) {
    const shape = dims ? `${dims.width}×${dims.height}, ` : "";
    throw new Error(sharpMissingMessage(`${path} (${shape}${bytes.length} bytes)`, reason));
  }
  return {
    type: "image",
    file: {
      filePath: path,
      base64: bytes.toString("base64"),
      type: media,
      originalSize: size,
      dimensions: { originalWidth: dims.width, originalHeight: dims.height, displayWidth: dims.width, displayHeight: dims.height },
    },
  };
}
