import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storePasswordHash } from "../../src/store/read/console.js";
import { createApp } from "../../src/web/app.js";
import { hashOf, PASSWORD } from "./console-support.js";
import { buildFixture, type Fixture, NOW } from "./fixture.js";

/**
 * The public directory answers GET and HEAD only: any other method on an address that answers
 * GET is 405 Method Not Allowed with `Allow: GET, HEAD` (RFC 9110 §15.5.6); an address nothing
 * answers is a plain 404. Pages answer as pages, the API in JSON, and the files (feeds,
 * calendar, downloads: docs/api.md) in plain text. The console keeps its own answers (403 to a
 * request not signed in).
 */
let f: Fixture;
let app: ReturnType<typeof createApp>;
beforeAll(async () => {
  f = await buildFixture();
  // The operator's password stored at the console fixtures' scrypt cost (console-support.ts
  // hashOf): the console's full-cost hash and check are console-cli's and browser's.
  await storePasswordHash(f.store.db, hashOf(PASSWORD), NOW);
  app = createApp({ db: f.store.db, now: () => NOW, console: {} });
});
afterAll(async () => {
  await f?.close();
});

const METHODS = ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] as const;

describe("methods other than GET and HEAD on the public directory", () => {
  it("an address that answers GET: 405 with Allow: GET, HEAD, as a page (JSON under /api/)", async () => {
    const pages = [
      "/",
      "/governments",
      "/counties/Franklin",
      "/governments/village-of-test",
      "/sources/test-agendas",
      "/new",
      "/search",
      "/downloads",
      "/site-owners",
    ];
    const api = ["/api/new", "/api/sources/test-agendas", "/api/counties", "/api/openapi.json"];
    for (const method of METHODS) {
      for (const path of [...pages, ...api]) {
        const res = await app.request(path, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get("allow"), `${method} ${path}`).toBe("GET, HEAD");
        const body = await res.text();
        if (path.startsWith("/api/")) {
          expect(res.headers.get("content-type")).toMatch(/^application\/json/);
          expect(JSON.parse(body).error).toContain(`${method} is not allowed`);
        } else {
          expect(res.headers.get("content-type"), `${method} ${path}`).toMatch(/^text\/html/);
          expect(body).toContain(`answers GET, HEAD only, not ${method}`);
          expect(body).not.toContain("Nothing is at");
        }
      }
    }
  });

  it("docs/api.md: the feeds, calendar and downloads answer 405 in plain text, with Allow: GET, HEAD", async () => {
    const files = [
      "/new.atom",
      "/new.rss",
      "/new.json",
      "/search.atom?q=x",
      "/search.rss?q=x",
      "/search.json?q=x",
      "/meetings.ics",
      "/downloads/records.csv",
      "/downloads/records.json",
      "/downloads/governments.csv",
      "/downloads/governments.json",
      "/downloads/sources.csv",
      "/downloads/sources.json",
      // The other files the directory serves, for programs too.
      "/sitemap.xml",
      "/robots.txt",
      "/assets/site.css",
      "/favicon.ico",
    ];
    for (const method of METHODS) {
      for (const path of files) {
        const res = await app.request(path, { method });
        const at = `${method} ${path}`;
        expect(res.status, at).toBe(405);
        expect(res.headers.get("allow"), at).toBe("GET, HEAD");
        expect(res.headers.get("content-type"), at).toMatch(/^text\/plain/);
        const bare = path.split("?")[0];
        expect(await res.text(), at).toBe(`${bare} answers GET, HEAD only, not ${method}.`);
      }
    }
  });

  it("GET and HEAD still answer there", async () => {
    for (const path of ["/", "/new.atom", "/sources/test-agendas", "/api/new"]) {
      for (const method of ["GET", "HEAD"]) {
        const res = await app.request(path, { method });
        expect(res.status, `${method} ${path}`).toBe(200);
        expect(res.headers.get("allow")).toBeNull();
      }
    }
  });

  it("an address that answers no method: a plain 404, without Allow; a file's in plain text", async () => {
    for (const method of ["GET", ...METHODS]) {
      for (const path of [
        "/nothing-here",
        "/nothing-here/",
        // GET (and HEAD) of a known address with a trailing slash is sent to it without the
        // slash (public-edges-tester2.test.ts); any other method finds nothing there.
        ...(method === "GET" ? [] : ["/new/"]),
        "/sources",
        "/downloads/nope.csv",
        "/new.xml",
      ]) {
        const res = await app.request(path, { method });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers.get("allow"), `${method} ${path}`).toBeNull();
        expect(await res.text()).toContain(`Nothing is at ${path}.`);
        const file = /\.[a-z]+$/.test(path);
        expect(res.headers.get("content-type"), `${method} ${path}`).toMatch(
          file ? /^text\/plain/ : /^text\/html/,
        );
      }
      const api = await app.request("/api/nothing", { method });
      expect(api.status, `${method} /api/nothing`).toBe(404);
      expect(api.headers.get("allow")).toBeNull();
      expect(((await api.json()) as { error: string }).error).toBe(
        `no API route ${method} /api/nothing`,
      );
    }
  });

  it("the console keeps its own answers: a request not signed in is 403, with no Allow", async () => {
    for (const method of METHODS) {
      for (const path of ["/console", "/console/sources/test-agendas", "/console/nope"]) {
        const res = await app.request(path, { method });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.headers.get("allow"), `${method} ${path}`).toBeNull();
      }
    }
    // Turned off, it is off for every method.
    const off = createApp({ db: f.store.db, now: () => NOW, console: false });
    const res = await off.request("/console/sources/test-agendas", { method: "POST" });
    expect(res.status).toBe(503);
  });
});
