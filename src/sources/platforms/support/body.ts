/**
 * Reading response bodies the way every preset needs: decoded once, JSON parsed leniently
 * (a BOM, `//` comment lines before the payload), and a cheap sniff for "this is an HTML page"
 * so that a feed or API URL answering with a web page is reported, not read as "no records".
 */

const utf8 = new TextDecoder("utf-8");

export function decode(body: Uint8Array): string {
  return utf8.decode(body);
}

export type JsonResult = { ok: true; value: unknown } | { ok: false; why: string };

/**
 * JSON.parse after dropping a BOM and leading `//` comment lines (seen in a captured Legistar
 * answer). Anything else that fails is reported, never thrown: a preset throws only on bugs.
 */
export function parseJson(text: string): JsonResult {
  let t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  t = t.replace(/^(?:\s*\/\/[^\n]*\n)+/, "");
  const trimmed = t.trim();
  if (trimmed === "") return { ok: false, why: "empty body" };
  if (looksLikeHtml(trimmed)) return { ok: false, why: "answered with an HTML page, not JSON" };
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch (e) {
    return { ok: false, why: `not JSON (${(e as Error).message.slice(0, 80)})` };
  }
}

export function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, 2048).trimStart().toLowerCase();
  return head.startsWith("<!doctype html") || head.startsWith("<html") || /<html[\s>]/.test(head);
}

/** A plain object, or undefined: JSON from the wild is `unknown` until looked at. */
export function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}
