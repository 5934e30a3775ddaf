import type { Method } from "./types.js";

/**
 * P3: only plain public http(s) URLs are requested. A URL with user-info (`user:pw@host`)
 * is refused outright, never sent with the credentials stripped.
 */
export function checkUrl(raw: string): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `not a URL: ${JSON.stringify(raw)}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `not an http(s) URL: ${raw}` };
  }
  if (url.username !== "" || url.password !== "") {
    return {
      ok: false,
      reason: `URL carries user-info (credentials are never sent, P3): ${url.host}`,
    };
  }
  url.hash = "";
  return { ok: true, url };
}

export interface Hop {
  url: string;
  method: Method;
  body?: string;
  contentType?: string;
}

/**
 * RFC 9110 §15.4: 303 turns into GET (HEAD stays HEAD); 301/302 after POST turn into GET
 * (what every browser does); 307/308 repeat the method and body.
 */
export function nextHop(
  prev: Hop,
  status: number,
  location: string,
): { ok: true; hop: Hop } | { ok: false; reason: string } {
  let target: string;
  try {
    target = new URL(location, prev.url).href;
  } catch {
    return { ok: false, reason: `bad redirect Location ${JSON.stringify(location)}` };
  }
  const checked = checkUrl(target);
  if (!checked.ok) return { ok: false, reason: `redirect to ${checked.reason}` };
  const toGet =
    (status === 303 && prev.method !== "HEAD") ||
    ((status === 301 || status === 302) && prev.method === "POST");
  if (toGet) return { ok: true, hop: { url: checked.url.href, method: "GET" } };
  const hop: Hop = { url: checked.url.href, method: prev.method };
  if (prev.body !== undefined) hop.body = prev.body;
  if (prev.contentType !== undefined) hop.contentType = prev.contentType;
  return { ok: true, hop };
}
