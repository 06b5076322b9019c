import { readFile } from "node:fs/promises";

import type { DocumentBlock } from "../../tool/types.js";

export const PDF_PAGES_WITHOUT_RANGE = 10;

/** What a host that cannot pass a PDF document on shows in its place (Read only sends one to providers that read them). */
export function documentPlaceholder(block: DocumentBlock): string {
  return `[PDF document, ${Math.round((block.source.data.length * 3) / 4)} bytes: not readable here; Read the file with pages: "1-10" for its text]`;
}
export const PDF_MAX_PAGES_PER_CALL = 20;
const PDF_MAX_BYTES = 100 * 1024 * 1024;

export interface PageRange {
  first: number;
  last: number;
}

/** `"3"` or `"1-5"`; an error message the model can act on when malformed. */
export function parsePageRange(spec: string): PageRange | string {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(spec);
  if (!m) return `Invalid pages value "${spec}". Use a page number ("3") or a range ("1-5").`;
  const first = Number(m[1]);
  const last = m[2] === undefined ? first : Number(m[2]);
  if (first < 1) return `Invalid pages value "${spec}": pages are numbered from 1.`;
  if (last < first) return `Invalid pages value "${spec}": the range ends before it starts.`;
  if (last - first + 1 > PDF_MAX_PAGES_PER_CALL) {
    return `Invalid pages value "${spec}": at most ${PDF_MAX_PAGES_PER_CALL} pages can be read in one call. Split it into ranges such as "${first}-${first + PDF_MAX_PAGES_PER_CALL - 1}".`;
  }
  return { first, last };
}

/** A PDF given whole, for a model that reads documents itself (Anthropic's `document` block). */
export interface PdfDocumentData {
  type: "pdf_document";
  file: { filePath: string; base64: string; originalSize: number; totalPages: number };
}

/** Documents above this go as extracted text (the API's request limit is 32 MB, base64 included). */
const PDF_DOCUMENT_MAX_BYTES = 20 * 1024 * 1024;

/**
 * The whole PDF as a document, when it is small enough and has at most 10 pages (more need
 * `pages`, as for the text); undefined when it is too large to send whole (the caller extracts text).
 */
export async function readPdfDocument(path: string, size: number): Promise<PdfDocumentData | undefined> {
  if (size > PDF_DOCUMENT_MAX_BYTES) return undefined;
  const bytes = await readFile(path);
  // Encoded first: pdf.js takes the buffer over (detaches it) when it opens the file.
  const base64 = bytes.toString("base64");
  const total = await pdfPageCount(bytes);
  if (total > PDF_PAGES_WITHOUT_RANGE) throw new Error(tooManyPagesMessage(total));
  return { type: "pdf_document", file: { filePath: path, base64, originalSize: size, totalPages: total } };
}

/** The document through pdf.js (unpdf), or an error saying it could not be opened. */
async function openPdf(bytes: Buffer) {
  const { getDocumentProxy } = await import("unpdf");
  try {
    return await getDocumentProxy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    throw new Error(`This PDF could not be opened (${(err as Error).message}). It may be damaged or encrypted.`);
  }
}

async function pdfPageCount(bytes: Buffer): Promise<number> {
  const pdf = await openPdf(bytes);
  try {
    return pdf.numPages;
  } finally {
    await pdf.destroy();
  }
}

function tooManyPagesMessage(total: number): string {
  return `This PDF has ${total} pages, more than ${PDF_PAGES_WITHOUT_RANGE} can be read at once. Call Read again with pages, e.g. pages: "1-${PDF_MAX_PAGES_PER_CALL}" (at most ${PDF_MAX_PAGES_PER_CALL} pages a call).`;
}

export interface PdfReadData {
  type: "pdf";
  file: { filePath: string; totalPages: number; pages: Array<{ page: number; text: string }> };
  /** Set when the pages' text was over the output budget and the rest was left out. */
  notice?: string;
}

/**
 * Keeps whole pages while they fit in `maxChars` (the first page is cut if it alone does not),
 * and says which pages to ask for next. Pure.
 */
export function fitPdfToBudget(data: PdfReadData, maxChars: number, lastRequested: number): PdfReadData {
  let used = 0;
  const kept: PdfReadData["file"]["pages"] = [];
  for (const page of data.file.pages) {
    const cost = page.text.length + 20;
    if (used + cost > maxChars) {
      if (kept.length === 0) kept.push({ page: page.page, text: `${page.text.slice(0, maxChars)}… [page cut]` });
      break;
    }
    kept.push(page);
    used += cost;
  }
  if (kept.length === data.file.pages.length && !kept.some((p) => p.text.endsWith("… [page cut]"))) return data;
  const next = kept[kept.length - 1]!.page + 1;
  const notice =
    next <= lastRequested
      ? `[Partial view: the text of pages ${kept[0]!.page}-${next - 1} fills the output budget. Call Read with pages: "${next}-${Math.min(lastRequested, next + PDF_MAX_PAGES_PER_CALL - 1)}" to continue.]`
      : `[Partial view: page ${kept[0]!.page} alone is over the output budget and was cut.]`;
  return { ...data, file: { ...data.file, pages: kept }, notice };
}

/** Text of the pages of a PDF, through pdf.js (unpdf). */
export async function readPdf(path: string, size: number, range: PageRange | undefined): Promise<PdfReadData> {
  if (size > PDF_MAX_BYTES) throw new Error(`This PDF is too large to read (${Math.round(size / 1024 / 1024)} MiB; the limit is 100 MiB).`);
  const pdf = await openPdf(await readFile(path));
  try {
    const total = pdf.numPages;
    if (!range && total > PDF_PAGES_WITHOUT_RANGE) {
      throw new Error(tooManyPagesMessage(total));
    }
    const first = range?.first ?? 1;
    const last = Math.min(range?.last ?? total, total);
    if (first > total) throw new Error(`This PDF has ${total} page${total === 1 ? "" : "s"}; page ${first} does not exist.`);
    const pages: Array<{ page: number; text: string }> = [];
    for (let n = first; n <= last; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) {
        if (!("str" in item)) continue;
        text += item.str + (item.hasEOL ? "\n" : "");
      }
      pages.push({ page: n, text: text.trim() });
    }
    return { type: "pdf", file: { filePath: path, totalPages: total, pages } };
  } finally {
    await pdf.destroy();
  }
}

export function formatPdf(data: PdfReadData): string {
  const { pages, totalPages, filePath } = data.file;
  const shown = pages.length === 0 ? "no pages" : `pages ${pages[0]!.page}-${pages[pages.length - 1]!.page}`;
  const parts = [`PDF ${filePath}: ${totalPages} page${totalPages === 1 ? "" : "s"}, showing ${shown}.`];
  for (const { page, text } of pages) {
    parts.push(`--- Page ${page} ---\n${text === "" ? "(no extractable text on this page; it may be a scanned image)" : text}`);
  }
  if (data.notice !== undefined) parts.push(data.notice);
  return parts.join("\n\n");
}
