import type { Validators } from "./types.js";

/**
 * P1, P3, P12: the only headers the checker ever sends. Exactly one User-Agent; no
 * Authorization, no Referer; a Cookie only from the source's own jar for its own site.
 */
export interface HeaderInput {
  userAgent: string;
  accept?: string;
  contentType?: string;
  validators?: Validators;
  cookie?: string;
}

const TOKEN_CHARS = /^[\t\x20-\x7e]*$/;

/** Caller-supplied values become header values: refuse anything that could smuggle a line. */
function safe(name: string, value: string): string {
  if (!TOKEN_CHARS.test(value)) throw new TypeError(`${name} header value has control characters`);
  return value;
}

export function requestHeaders(h: HeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    "user-agent": h.userAgent,
    accept: safe("Accept", h.accept ?? "*/*"),
    "accept-encoding": "gzip, deflate, br",
  };
  if (h.contentType !== undefined) headers["content-type"] = safe("Content-Type", h.contentType);
  if (h.validators?.etag) headers["if-none-match"] = safe("If-None-Match", h.validators.etag);
  if (h.validators?.lastModified) {
    headers["if-modified-since"] = safe("If-Modified-Since", h.validators.lastModified);
  }
  if (h.cookie) headers["cookie"] = safe("Cookie", h.cookie);
  return headers;
}

/** P3: what was actually sent as conditionals, for the log. */
export function validatorsSent(v: Validators | undefined): Validators | undefined {
  if (!v?.etag && !v?.lastModified) return undefined;
  return {
    ...(v.etag ? { etag: v.etag } : {}),
    ...(v.lastModified ? { lastModified: v.lastModified } : {}),
  };
}
