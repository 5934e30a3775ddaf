import { afterEach, describe, expect, it } from "vitest";
import { minGap } from "../fleet/gaps.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, redirect, robots } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

async function twoOrigins() {
  h = await harness();
  const a = await h.fleet.server();
  const b = await h.fleet.server();
  a.route("/robots.txt", robots("User-agent: *\nDisallow: /private\n"));
  b.route("/robots.txt", robots("User-agent: public-records-check\nDisallow: /closed\n"));
  a.route("/ok", html("a ok"));
  a.route("/private/x", html("a private"));
  b.route("/ok", html("b ok"));
  b.route("/closed/x", html("b closed"));
  return { a, b, f: h.fetcher() };
}

describe("redirects (P19, P18)", () => {
  it("P19: a redirect into an allowed path on the same origin is followed, logged as a redirect hop", async () => {
    const { a, f } = await twoOrigins();
    a.route("/start", redirect("/ok", 301));
    const out = await f.fetch({ url: a.url("/start"), purpose: "page", source: "src-1" });
    expect(out).toMatchObject({
      kind: "ok",
      url: a.url("/ok"),
      chain: [a.url("/start"), a.url("/ok")],
    });
    expect(a.requests.map((r) => r.path)).toEqual(["/robots.txt", "/start", "/ok"]);
    expect(h.ports.log.entries.map((e) => [e.purpose, e.outcome])).toEqual([
      ["robots", "rules"],
      ["page", "redirect"],
      ["redirect", "ok"],
    ]);
    expect(minGap(a.requests)).toBeGreaterThanOrEqual(2000);
  });

  it("P18, P19: a redirect into a disallowed path on the same origin is not followed", async () => {
    const { a, f } = await twoOrigins();
    a.route("/start", redirect("/private/x"));
    expect(await f.fetch({ url: a.url("/start"), purpose: "page" })).toMatchObject({
      kind: "disallowed",
      url: a.url("/private/x"),
    });
    expect(a.hits("/private/x")).toHaveLength(0);
  });

  it("P19: before a hop to another origin, that origin's robots.txt is read and the target checked", async () => {
    const { a, b, f } = await twoOrigins();
    a.route("/to-b-ok", redirect(b.url("/ok")));
    a.route("/to-b-closed", redirect(b.url("/closed/x")));
    expect((await f.fetch({ url: a.url("/to-b-ok"), purpose: "page" })).kind).toBe("ok");
    const order = h.fleet.requests.map((r) => `${r.origin === a.origin ? "a" : "b"}${r.path}`);
    expect(order).toEqual(["a/robots.txt", "a/to-b-ok", "b/robots.txt", "b/ok"]);
    const seenB = h.fleet.requests.find((r) => r.origin === b.origin && r.path === "/robots.txt")!;
    const hopA = h.fleet.requests.find((r) => r.path === "/to-b-ok")!;
    expect(seenB.startedAt).toBeGreaterThanOrEqual(hopA.endedAt);

    expect((await f.fetch({ url: a.url("/to-b-closed"), purpose: "page" })).kind).toBe(
      "disallowed",
    );
    expect(b.hits("/closed/x")).toHaveLength(0);
    expect(b.hits("/robots.txt")).toHaveLength(1);
  });

  it("P19: five redirects in a row are followed", async () => {
    const { a, f } = await twoOrigins();
    for (let i = 0; i < 5; i++) a.route(`/h${i}`, redirect(`/h${i + 1}`));
    a.route("/h5", html("arrived"));
    const out = await f.fetch({ url: a.url("/h0"), purpose: "page" });
    expect(out.kind).toBe("ok");
    expect(a.requests.filter((r) => r.path.startsWith("/h"))).toHaveLength(6);
  });

  it.each([6, 7])(
    "P19: %i redirects in a row: the sixth is not followed (too many redirects)",
    async (n) => {
      const { a, f } = await twoOrigins();
      for (let i = 0; i < n; i++) a.route(`/h${i}`, redirect(`/h${i + 1}`));
      a.route(`/h${n}`, html("never reached"));
      const out = await f.fetch({ url: a.url("/h0"), purpose: "page" });
      expect(out).toMatchObject({ kind: "error", reason: "too many redirects" });
      expect(a.requests.filter((r) => r.path.startsWith("/h")).map((r) => r.path)).toEqual([
        "/h0",
        "/h1",
        "/h2",
        "/h3",
        "/h4",
        "/h5",
      ]);
    },
  );

  it("P19: hops across origins go one at a time per site, each keeping the 2 s gap", async () => {
    const { a, b, f } = await twoOrigins();
    a.route("/ping", redirect(b.url("/pong")));
    b.route("/pong", redirect(a.url("/ok")));
    expect((await f.fetch({ url: a.url("/ping"), purpose: "page" })).kind).toBe("ok");
    expect(minGap(a.requests)).toBeGreaterThanOrEqual(2000);
    expect(minGap(b.requests)).toBeGreaterThanOrEqual(2000);
  });

  it("P15, P19: a redirect's Retry-After: 30 to another site is waited before the hop, and holds the site that sent it", async () => {
    const { a, b, f } = await twoOrigins();
    a.route("/moving", (_q, res) => {
      res.writeHead(302, { location: b.url("/ok"), "retry-after": "30" });
      res.end();
    });
    expect((await f.fetch({ url: a.url("/moving"), purpose: "page" })).kind).toBe("ok");
    const moved = a.hits("/moving")[0]!;
    // b's robots.txt is read first, itself a request to b: nothing to b before the wait either.
    const firstToB = h.fleet.requests.find((r) => r.origin === b.origin)!;
    expect(firstToB.startedAt - moved.endedAt).toBeGreaterThanOrEqual(30_000);
    // The site that asked is held as long: its next request waits too.
    expect((await f.fetch({ url: a.url("/ok"), purpose: "page" })).kind).toBe("ok");
    expect(a.hits("/ok")[0]!.startedAt - moved.endedAt).toBeGreaterThanOrEqual(30_000);
  });

  it("P15, P19: a redirect whose Retry-After is over 60 s is not followed tonight", async () => {
    const { a, b, f } = await twoOrigins();
    a.route("/later", (_q, res) => {
      res.writeHead(301, { location: b.url("/ok"), "retry-after": "120" });
      res.end();
    });
    expect(await f.fetch({ url: a.url("/later"), purpose: "page" })).toMatchObject({
      kind: "error",
      status: 301,
      reason: expect.stringContaining("not followed tonight"),
    });
    expect(b.requests).toHaveLength(0);
  });

  it("P19: 303 after POST becomes GET without the body; 307 repeats the POST and its body", async () => {
    const { a, f } = await twoOrigins();
    a.route("/form", redirect("/ok", 303));
    a.route("/form307", redirect("/echo", 307));
    a.route("/echo", html("echo"));
    const body = "q=bids&page=2";
    const contentType = "application/x-www-form-urlencoded";
    await f.fetch({ url: a.url("/form"), method: "POST", body, contentType, purpose: "form" });
    await f.fetch({ url: a.url("/form307"), method: "POST", body, contentType, purpose: "form" });
    const [ok] = a.hits("/ok");
    const [echo] = a.hits("/echo");
    expect(ok).toMatchObject({ method: "GET", body: "" });
    expect(ok?.headers["content-type"]).toBeUndefined();
    expect(echo).toMatchObject({ method: "POST", body });
  });

  it("P3: a redirect to a URL with user-info is refused, never sent", async () => {
    const { a, f } = await twoOrigins();
    a.route("/creds", redirect(`http://user:pw@${a.host}:${a.port}/ok`));
    const out = await f.fetch({ url: a.url("/creds"), purpose: "page" });
    expect(out.kind).toBe("error");
    expect(a.hits("/ok")).toHaveLength(0);
    expect(a.requests.some((r) => r.headers.authorization !== undefined)).toBe(false);
  });
});
