import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { checkUrl, nextHop, normalisePercent, normaliseUrl } from "../../src/net/redirects.js";
import { addDays } from "../../src/policy/night-date.js";
import { pathAndQueryOf } from "../../src/policy/robots/index.js";
import type { FleetServer } from "../fleet/fleet.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, redirect, robots } from "../fleet/routes.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ORIGIN = "http://records.example.org";

/** Path and query of a URL string, as robots.txt reads it (RFC 9309 §2.2.2). */
const judged = (url: string) => pathAndQueryOf(new URL(url));

// URL pieces: unreserved, reserved, escapes in either case (of any byte, and of unreserved
// characters), `'`, characters the URL parser escapes itself, and dot segments.
const unreserved = fc.constantFrom(..."Az09-._~");
const reserved = fc.constantFrom(..."!$&'()*+,;=:@");
const anyEscape = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.boolean()).map(([b, lower]) => {
  const hex = b.toString(16).padStart(2, "0");
  return `%${lower ? hex : hex.toUpperCase()}`;
});
const unreservedEscape = fc.tuple(fc.constantFrom(..."aZ5-._~"), fc.boolean()).map(([c, lower]) => {
  const hex = c.charCodeAt(0).toString(16);
  return `%${lower ? hex : hex.toUpperCase()}`;
});
const odd = fc.constantFrom(" ", "é", "%", '"', "<", ">", "|", "^", "`", "{", "}");
const unit = fc.oneof(unreserved, reserved, anyEscape, unreservedEscape, odd);
const segment = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit, maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom(".", "..", "%2e", "%2E%2e", ".%2E") },
);
const path = fc.array(segment, { maxLength: 4 }).map((s) => `/${s.join("/")}`);
const queryUnit = fc.oneof(unit, fc.constantFrom("/", "?", "=", "&", "'"));
const query = fc.oneof(
  fc.constant(""),
  fc.constant("?"),
  fc.string({ unit: queryUnit, maxLength: 8 }).map((q) => `?${q}`),
);
const fragment = fc.oneof(
  fc.constant(""),
  fc.constant("#"),
  fc.string({ unit: queryUnit, maxLength: 4 }).map((f) => `#${f}`),
);
/** Path, query and fragment as a catalog or a pager link might write them. */
const tail = fc.tuple(path, query, fragment).map(([p, q, f]) => `${p}${q}${f}`);

describe("one normal form per request URL (P18, P27)", () => {
  it("P18, P27: drops the fragment, an empty query and the default port; upper-cases escapes; decodes unreserved ones", () => {
    const cases: [string, string][] = [
      ["http://Records.Example.org:80/records?", `${ORIGIN}/records`],
      ["http://records.example.org/records?#top", `${ORIGIN}/records`],
      ["http://records.example.org/records#top", `${ORIGIN}/records`],
      [
        "https://records.example.org:443/a%7eb/%7E?q=%3d%7e%2f",
        "https://records.example.org/a~b/~?q=%3D~%2F",
      ],
      ["http://records.example.org/%41%62%2D%2e%5F?x=%5a", `${ORIGIN}/Ab-._?x=Z`],
      // Reserved characters and their escapes are different URLs (RFC 3986 §2.2): both kept.
      ["http://records.example.org/a%2Fb/a/b?a=%26&b=&", `${ORIGIN}/a%2Fb/a/b?a=%26&b=&`],
      // A query that is only a `?` inside the query stays: it is not empty.
      ["http://records.example.org/r??", `${ORIGIN}/r??`],
      // A `%` that starts no escape is left as written.
      ["http://records.example.org/100%?p=%zz", `${ORIGIN}/100%?p=%zz`],
      // …and an escape after it is not decoded into a hex digit that would join it.
      ["http://records.example.org/%%61A%%6a%4%31", `${ORIGIN}/%%61A%j%4%31`],
      ["http://records.example.org/a/%2e%2E/b", `${ORIGIN}/b`],
    ];
    for (const [raw, want] of cases) expect([raw, normaliseUrl(raw)]).toEqual([raw, want]);
    expect(normalisePercent("%7e%7E%2f%C3%a9")).toBe("~~%2F%C3%A9");
  });

  it("P3: credentials and other schemes are still refused, before any normalising", () => {
    expect(checkUrl("http://user:pw@records.example.org/?")).toMatchObject({ ok: false });
    expect(checkUrl("ftp://records.example.org/")).toMatchObject({ ok: false });
    expect(normaliseUrl("not a url")).toBeUndefined();
  });

  it("P18, P27: a redirect target is normalised like a catalog URL", () => {
    const next = nextHop({ url: `${ORIGIN}/start`, method: "GET" }, 302, "/rec%6frds?#x");
    expect(next).toEqual({ ok: true, hop: { url: `${ORIGIN}/records`, method: "GET" } });
  });

  it("P18, P27: property: the normal form is stable, and what robots.txt reads of it is exactly its path and query", () => {
    fc.assert(
      fc.property(tail, (t) => {
        const n = normaliseUrl(`${ORIGIN}${t}`);
        expect(n).toBeDefined();
        if (n === undefined) return;
        expect(normaliseUrl(n)).toBe(n);
        expect(new URL(n).href).toBe(n);
        const pq = judged(n);
        expect(`${ORIGIN}${pq}`).toBe(n);
        expect(pq).not.toContain("#");
        expect(pq.endsWith("?") && pq.indexOf("?") === pq.length - 1).toBe(false);
        // RFC 3986 §6.2.2.1 and §6.2.2.2: no lower-case hex, no escaped unreserved character
        // (but a hex digit right after a stray `%` stays escaped, or it would join that `%`).
        for (const m of pq.matchAll(/%([0-9A-Fa-f]{2})/g)) {
          const hex = m[1] ?? "";
          expect(hex).toBe(hex.toUpperCase());
          const ch = String.fromCharCode(Number.parseInt(hex, 16));
          const afterStray = pq.slice(Math.max(0, m.index - 2), m.index).includes("%");
          if (!afterStray) expect(ch).not.toMatch(/^[A-Za-z0-9\-._~]$/);
        }
      }),
      { numRuns: 1_000 },
    );
    // Stray `%`s among hex digits and escapes: the form is still its own normal form.
    const percentSoup = fc.string({
      unit: fc.constantFrom("%", "a", "A", "6", "1", "z", "%61", "%6a", "%41", "%2f", "%7E"),
      maxLength: 12,
    });
    fc.assert(
      fc.property(percentSoup, (t) => {
        const once = normalisePercent(t);
        expect(normalisePercent(once)).toBe(once);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe("robots.txt, the wire and the log agree byte for byte (P18, P27)", () => {
  async function fleet() {
    h = await harness();
    const s = await h.fleet.server({ fallback: html("a page") });
    return { h, s };
  }

  it("P18: `Disallow: /records$` holds for `/records?`, `/records?#top` and `/rec%6Frds`, from the catalog and through a redirect", async () => {
    const { h, s } = await fleet();
    s.route("/robots.txt", robots("User-agent: *\nDisallow: /records$\n"));
    s.route("/go", redirect("/records?"));
    const f = h.fetcher();
    for (const p of ["/records?", "/records?#top", "/rec%6Frds", "/records"]) {
      expect(await f.fetch({ url: s.url(p), purpose: "page" })).toEqual({
        kind: "disallowed",
        url: s.url("/records"),
      });
    }
    expect(await f.fetch({ url: s.url("/go"), purpose: "page" })).toMatchObject({
      kind: "disallowed",
      url: s.url("/records"),
    });
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/go"]);
  });

  it("P27: the log records the URL as sent: `/list?` is logged and requested as `/list`, `%7e` as `~`", async () => {
    const { h, s } = await fleet();
    s.route("/robots.txt", robots(""));
    const f = h.fetcher();
    const out = await f.fetch({ url: s.url("/list?#frag"), purpose: "page" });
    expect(out).toMatchObject({ kind: "ok", url: s.url("/list") });
    await f.fetch({ url: s.url("/a%7eb?q=%3d%7E"), purpose: "page" });
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list", "/a~b?q=%3D~"]);
    expect(h.ports.log.entries.map((e) => e.url)).toEqual([
      s.url("/robots.txt"),
      s.url("/list"),
      s.url("/a~b?q=%3D~"),
    ]);
  });

  it("P18, P27: property: for random URLs the request line a server receives is the logged path and the path robots.txt judged", async () => {
    const { h, s } = await fleet();
    s.route("/robots.txt", robots(""));
    // robots.txt is read once, before the property: each run then makes exactly one request.
    expect((await h.fetcher().fetch({ url: s.url("/"), purpose: "page" })).kind).toBe("ok");
    // A second server whose robots.txt disallows exactly the path the first one received,
    // read afresh for every URL: the checker must then judge that very path and not send it.
    const b: FleetServer = await h.fleet.server({ fallback: html("must not be asked") });
    let rules = "";
    b.route("/robots.txt", (req, res, ctx) => robots(rules)(req, res, ctx));
    // A night of its own per run: within one night an answer received in full is replayed,
    // never asked again (P8), and two random tails often normalise to one URL.
    let run = 0;
    await fc.assert(
      fc.asyncProperty(tail, async (t) => {
        const night = addDays("2026-01-01", run++);
        const f = h.fetcher({ night });
        const g = h.fetcher({
          night,
          robotsCache: { get: async () => undefined, put: async () => {} },
        });
        const before = s.requests.length;
        const logBefore = h.ports.log.entries.length;
        const out = await f.fetch({ url: `${s.origin}${t}`, purpose: "page" });
        expect(out.kind).toBe("ok");
        const seen = s.requests.slice(before);
        expect(seen).toHaveLength(1);
        const wire = seen[0]?.path ?? "";
        const logged = h.ports.log.entries.slice(logBefore);
        expect(logged).toHaveLength(1);
        const loggedUrl = logged[0]?.url ?? "";
        // The log's URL is the origin plus the very bytes of the request line.
        expect(loggedUrl).toBe(`${s.origin}${wire}`);
        // What robots.txt reads of the URL the fetcher judged (the URL it logged and answered
        // with) is the request line too.
        expect(judged(loggedUrl)).toBe(wire);
        if (out.kind === "ok") expect(out.url).toBe(loggedUrl);

        // The same URL on the second server, whose robots.txt disallows just that path.
        const pattern = wire.replaceAll("*", "%2A").replaceAll("$", "%24");
        rules = `User-agent: *\nDisallow: ${pattern}$\n`;
        const bBefore = b.requests.length;
        const denied = await g.fetch({ url: `${b.origin}${t}`, purpose: "page" });
        expect(denied).toEqual({ kind: "disallowed", url: `${b.origin}${wire}` });
        expect(b.requests.slice(bBefore).map((r) => r.path)).toEqual(["/robots.txt"]);
      }),
      { numRuns: 30 },
    );
  });
});
