/**
 * Web manners for every answer of `nor serve`: security headers, a cap on every request body
 * before it is read, compression, ETag with 304, Cache-Control, and the small files a site
 * is asked for (style sheet, favicon, robots.txt, sitemap).
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { compress } from "hono/compress";
import { RETAINED_304_HEADERS } from "hono/etag";
import { reads } from "./public/filters.js";
import { SITE_CSS } from "./style.js";

/** The largest request body read: the console's forms are a few hundred bytes. */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * No script at all (the site works without JavaScript), styles only from our own sheet, no
 * framing by anyone (a source page must not load inside another site's iframe), forms post
 * only to us.
 */
export const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    const set = (k: string, v: string) => {
      if (!h.has(k)) c.header(k, v);
    };
    set("Content-Security-Policy", CSP);
    set("X-Content-Type-Options", "nosniff");
    set("Referrer-Policy", "same-origin");
    set("X-Frame-Options", "DENY");
    set("Cross-Origin-Opener-Policy", "same-origin");
    set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  };
}

/** 413 before the body is read: a declared Content-Length over the cap is refused unread. */
export function bodyCap(): MiddlewareHandler {
  return bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => {
      c.header("Connection", "close");
      return c.text(`Request body too large: at most ${MAX_BODY_BYTES} bytes are read.\n`, 413);
    },
  });
}

/** How long browsers and proxies may keep public answers before asking again (with ETag). */
export const PUBLIC_MAX_AGE = 300;

/**
 * ETag (weak: compression changes the bytes, not the meaning) and a 304 on a match, plus
 * Cache-Control for public answers that did not set their own. `Vary: Accept-Encoding` is set
 * inside the ETag's middleware (`varyEncoding`), so a 304 carries the Vary its 200 would
 * (RFC 9110 §15.4.5), whatever made the 304.
 */
export function caching(): MiddlewareHandler[] {
  return [compress(), cacheControlFor(), etags(), varyEncoding()];
}

const VARIES_ON_ENCODING = /(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i;

/**
 * `Vary: Accept-Encoding` on every GET or HEAD answer, whatever it is (docs/api.md): a page, a
 * feed, JSON, a file, small or large, a redirect (a 301 from a trailing slash, the 302 that
 * drops a tracking tag), a 400 or 404, a 304. hono/compress adds it only to the bodies it may
 * compress (not to a 304, a HEAD, a body under 1 KiB or one without a compressible type: a
 * redirect has none), so a cache could keep one answer for every encoding asked. Set here,
 * before the 304 is made, a 304 keeps the Vary of its 200 (etags).
 */
function varyEncoding(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!(c.req.method === "GET" || c.req.method === "HEAD")) return;
    const vary = c.res.headers.get("Vary");
    if (vary !== null && VARIES_ON_ENCODING.test(vary)) return;
    c.res.headers.set("Vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
  };
}

/**
 * A weak ETag from the answer's bytes (SHA-1) and a 304 when If-None-Match names it, as
 * hono/etag does, except for an answer no one may keep (Cache-Control: no-store: the console's
 * pages and its log download). Hashing reads an answer whole before its first byte is sent, so
 * the log download, written a page of rows at a time, was held in memory whole first; and an
 * ETag on what may not be stored serves no one. An answer that brings its own ETag keeps it.
 */
/** Whether If-None-Match names `tag` (weak comparison, RFC 9110 §13.1.2), or is `*`. */
export function namesTag(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = tag.replace(/^W\//, "");
  return (ifNoneMatch.match(/"[^"]*"/g) ?? []).some((t) => t === bare);
}

function etags(): MiddlewareHandler {
  const kept = new Set(RETAINED_304_HEADERS);
  return async (c, next) => {
    const ifNoneMatch = c.req.header("If-None-Match") ?? null;
    await next();
    if (!(c.req.method === "GET" || c.req.method === "HEAD") || !c.res.ok) return;
    if (/\bno-store\b/i.test(c.res.headers.get("Cache-Control") ?? "")) return;
    let tag = c.res.headers.get("ETag");
    if (!tag) {
      if (!c.res.body) return;
      const bytes = await c.res.clone().arrayBuffer();
      const hash = Buffer.from(await crypto.subtle.digest("SHA-1", bytes)).toString("hex");
      tag = `W/"${hash}"`;
    }
    if (!namesTag(ifNoneMatch ?? undefined, tag)) {
      c.res.headers.set("ETag", tag);
      return;
    }
    await c.res.body?.cancel();
    const headers = new Headers({ ETag: tag });
    for (const [k, v] of c.res.headers) if (kept.has(k.toLowerCase())) headers.set(k, v);
    c.res = new Response(null, { status: 304, statusText: "Not Modified", headers });
  };
}

function cacheControlFor(): MiddlewareHandler {
  const cacheControl: MiddlewareHandler = async (c, next) => {
    await next();
    if (
      (c.req.method === "GET" || c.req.method === "HEAD") &&
      !c.res.headers.has("Cache-Control")
    ) {
      c.header(
        "Cache-Control",
        c.res.ok || c.res.status === 304 ? `public, max-age=${PUBLIC_MAX_AGE}` : "no-cache",
      );
    }
  };
  return cacheControl;
}

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#12355b"/><path d="M8 23V9h3l7 9V9h3v14h-3l-7-9v9z" fill="#fff"/></svg>`;

/** Static answers; `origin()` is the configured public origin (never the request's Host). */
export function staticRoutes(app: Hono, origin: () => string, withDirectory: boolean): void {
  const long = "public, max-age=86400";
  app.get("/assets/site.css", (c) =>
    c.body(SITE_CSS, 200, { "content-type": "text/css; charset=utf-8", "cache-control": long }),
  );
  const icon = (c: Context) =>
    c.body(FAVICON, 200, { "content-type": "image/svg+xml", "cache-control": long });
  app.get("/favicon.svg", icon);
  app.get("/favicon.ico", icon);
  // The style sheet and the icons ignore their query (a cache-buster, `?v=2`); robots.txt reads
  // none, as the sitemap (a 400 in plain text names what it does not read).
  app.get(
    "/robots.txt",
    reads([], (c, message) => c.text(message, 400)),
    (c) =>
      c.text(
        [
          "# New on Record: the directory may be indexed; the console and bulk files may not.",
          "User-agent: *",
          "Disallow: /console",
          "Disallow: /downloads/",
          "Disallow: /search",
          "Allow: /",
          ...(withDirectory ? ["", `Sitemap: ${origin()}/sitemap.xml`] : []),
          "",
        ].join("\n"),
      ),
  );
}
