/**
 * Sniffs on text already decoded (bytes become text in one place only: policy/body-text.ts,
 * shared by the presets, the generic readers, the form reader, `nor discover` and refusal
 * detection).
 */

/** A cheap sniff for "this is a web page": a feed or API URL answering HTML is said so. */
export function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, 2048).trimStart().toLowerCase();
  return head.startsWith("<!doctype html") || head.startsWith("<html") || /<html[\s>]/.test(head);
}

/** The `<title>` of an HTML page, for saying which page answered. */
export function htmlTitle(text: string): string | undefined {
  const t = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text.slice(0, 16384))?.[1];
  const clean = t?.replace(/\s+/g, " ").trim();
  return clean || undefined;
}
