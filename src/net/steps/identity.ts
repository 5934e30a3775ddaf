import { siteOf } from "../../policy/site.js";
import { answersOf, type Step } from "../pipeline.js";
import type { Validators } from "../types.js";

/**
 * P1, P3, P12, P22: the only headers the checker ever sends, built in this one place for every
 * request, robots.txt included. Exactly one User-Agent (validated in options.ts); no
 * Authorization, no Referer; the conditionals the validators step chose; a Cookie only from
 * the source's own jar, only to the source's own site, and only that site's Set-Cookie kept.
 */
export interface HeaderInput {
  userAgent: string;
  accept?: string;
  contentType?: string;
  validators?: Validators;
  cookie?: string;
}

export const identity =
  (deps: { userAgent: string }): Step =>
  (next) =>
  async (call) => {
    const sameSite = call.cookieJar !== undefined && siteOf(call.url) === call.homeSite;
    const cookie = sameSite ? call.cookieJar?.cookieHeader(call.url) : undefined;
    const headers = requestHeaders({
      userAgent: deps.userAgent,
      ...(call.accept !== undefined ? { accept: call.accept } : {}),
      ...(call.contentType !== undefined ? { contentType: call.contentType } : {}),
      ...(call.validatorsSent ? { validators: call.validatorsSent } : {}),
      ...(cookie ? { cookie } : {}),
    });
    const reply = await next({ ...call, headers });
    if (sameSite) {
      for (const a of answersOf(reply)) {
        if (a.kind === "response" && a.setCookies.length > 0) {
          call.cookieJar?.store(call.url, a.setCookies);
        }
      }
    }
    return reply;
  };

/**
 * RFC 9110 §5.5 field-value: tab, visible ASCII and obs-text (0x80-0xFF, which undici writes as
 * the same Latin-1 bytes). A validator is sent back exactly as the site sent it, so an ETag
 * holding "é" goes back as it came; what could smuggle a line (CR, LF, NUL, DEL, the other
 * controls) or is not one byte never does.
 */
const TOKEN_CHARS = /^[\t\x20-\x7e\x80-\xff]*$/;

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
