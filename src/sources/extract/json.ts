/**
 * The one JSON reader for every JSON answer (platform presets, api and download ways): the
 * one body decoder (a BOM, the charset), `//` comment lines before the payload (seen in a
 * captured Legistar answer), and one wording when an answer is not JSON, so the night's note
 * reads the same whichever reader met it. Never throws: an answer that is not JSON is the
 * site's answer, not our bug.
 */
import { decodeBody } from "../../policy/body-text.js";
import { htmlTitle, looksLikeHtml } from "./decode.js";

export type JsonRead = { ok: true; value: unknown } | { ok: false; why: string };

/** JSON from already decoded text. */
export function parseJsonText(text: string): JsonRead {
  const t = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
    .replace(/^(?:\s*\/\/[^\n]*\n)+/, "")
    .trim();
  if (t === "") return { ok: false, why: "not JSON: the answer is empty" };
  if (looksLikeHtml(t)) {
    const title = htmlTitle(t);
    return { ok: false, why: `not JSON: an HTML page${title ? ` ("${title}")` : ""}` };
  }
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch (e) {
    return { ok: false, why: `not JSON: ${(e as Error).message.slice(0, 80)}` };
  }
}

/** JSON from a response body; `contentType` is the response's header (its charset). */
export function readJson(body: Uint8Array, contentType?: string): JsonRead {
  return parseJsonText(decodeBody(body, contentType));
}
