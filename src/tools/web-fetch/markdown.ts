/** HTML → Markdown with turndown (loaded on first use: most sessions never fetch a page). */
let converter: Promise<(html: string) => string> | undefined;

export function htmlToMarkdown(html: string): Promise<string> {
  converter ??= import("turndown").then(({ default: TurndownService }) => {
    const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
    // What a reader does not see carries no content worth the context.
    service.remove(["script", "style", "noscript", "template", "iframe", "svg", "head"]);
    return (text: string) => service.turndown(text);
  });
  return converter.then((convert) => convert(html));
}
