import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { LATEST_HOLD_MS } from "../../src/policy/retry.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots, sequence } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

/** Until `done` holds, every 10 ms, 5 s at most. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("a wait asked for in an answer's head (P15)", () => {
  it.each([
    ["503 with Retry-After: 8", 503, { "retry-after": "8" }, 8000],
    ["429 without Retry-After (the 5 s wait)", 429, {}, 5000],
  ] as const)(
    "P15: %s is in the journal, the site held and the try counted, while its body is still being read",
    async (_what, code, headers, waitMs) => {
      h = await harness();
      const s = await h.fleet.server();
      s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
      let held: ServerResponse | undefined;
      s.route(
        "/list",
        sequence((_req, res) => {
          // The head, and 4 of 100 bytes: the body then stalls until the test lets it end.
          res.writeHead(code, { "content-length": "100", ...headers });
          res.write("busy");
          held = res;
        }, html("back")),
      );
      const f = h.fetcher();
      let settled = false;
      const fetched = f.fetch({ url: s.url("/list"), purpose: "page" }).finally(() => {
        settled = true;
      });
      const journal = h.ports.log;
      const site = () => [...journal.sites.values()].find((x) => x.notBefore !== undefined);
      await until(() => site() !== undefined);
      // Written ahead of the body: a process killed now leaves the wait behind it.
      expect(settled).toBe(false);
      const head = s.hits("/list")[0];
      expect(head).toBeDefined();
      const row = journal.entries.find((e) => e.url === s.url("/list"));
      expect(row).toMatchObject({ status: code, outcome: "in-flight", endedAt: null });
      expect(site()?.notBefore).toBeGreaterThanOrEqual((head?.startedAt ?? Number.NaN) + waitMs);
      held?.end("x".repeat(96));
      expect((await fetched).kind).toBe("ok");
      expect(s.hits("/list")).toHaveLength(2);
    },
  );

  it.each([
    ["503 with an unreadable Retry-After", 503, { "retry-after": "soon" }],
    ["503 with a Retry-After over 60 s", 503, { "retry-after": "61" }],
  ] as const)(
    "P15: %s: not asked again tonight, written before its body is read",
    async (_what, code, headers) => {
      h = await harness();
      const s = await h.fleet.server();
      s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
      let held: ServerResponse | undefined;
      s.route("/list", (_req, res) => {
        res.writeHead(code, { "content-length": "100", ...headers });
        res.write("busy");
        held = res;
      });
      const f = h.fetcher();
      const fetched = f.fetch({ url: s.url("/list"), purpose: "page" });
      const journal = h.ports.log;
      const row = () => journal.rows.find((r) => r.entry.url === s.url("/list"));
      await until(() => row()?.retryAt !== undefined);
      expect(row()?.entry.outcome).toBe("in-flight");
      expect(row()?.retryAt).toBe(LATEST_HOLD_MS);
      held?.end("x".repeat(96));
      expect((await fetched).kind).toBe("error");
      expect(s.hits("/list")).toHaveLength(1);
    },
  );

  it("P15: a redirect's Retry-After holds the site before its body is read", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    let held: ServerResponse | undefined;
    s.route("/old", (_req, res) => {
      res.writeHead(302, { location: "/new", "retry-after": "5", "content-length": "100" });
      res.write("moved");
      held = res;
    });
    s.route("/new", html("here"));
    const f = h.fetcher();
    const fetched = f.fetch({ url: s.url("/old"), purpose: "page" });
    const site = () => [...h.ports.log.sites.values()].find((x) => x.notBefore !== undefined);
    await until(() => site() !== undefined);
    expect(s.hits("/new")).toHaveLength(0);
    expect(site()?.notBefore).toBeGreaterThanOrEqual(
      (s.hits("/old")[0]?.startedAt ?? Number.NaN) + 5000,
    );
    held?.end("x".repeat(95));
    expect((await fetched).kind).toBe("ok");
  });

  it("P21: a 429 past its retries whose body is cut is still the no it said: refused, with its evidence, the site closed", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", (_req, res) => {
      res.writeHead(429, { "retry-after": "120", "content-length": "100" });
      res.write("slow down");
      setTimeout(() => res.destroy(), 20);
    });
    const f = h.fetcher();
    const o = await f.fetch({ url: s.url("/list"), purpose: "page" });
    expect(o).toMatchObject({ kind: "refused", status: 429 });
    const row = h.ports.log.entries.find((e) => e.url === s.url("/list"));
    expect(row?.outcome).toBe("refused");
    expect(row?.evidence).toMatchObject({ provider: "http", verdict: "rate-limit" });
    expect(s.hits("/list")).toHaveLength(1);
  });

  it.each([401, 403] as const)(
    "P21: a %i is a no from its head: the site closed in the journal while its body is still being read",
    async (code) => {
      h = await harness();
      const s = await h.fleet.server();
      s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
      let held: ServerResponse | undefined;
      s.route("/list", (_req, res) => {
        res.writeHead(code, { "content-length": "100" });
        res.write("no");
        held = res;
      });
      s.route("/other", html("never asked"));
      const f = h.fetcher();
      const fetched = f.fetch({ url: s.url("/list"), purpose: "page" });
      const journal = h.ports.log;
      const closed = () => [...journal.sites.values()].find((x) => x.closed !== undefined);
      await until(() => closed() !== undefined);
      // Written ahead of the body: a process killed now leaves the no behind it.
      const row = journal.rows.find((r) => r.entry.url === s.url("/list"));
      expect(row?.entry).toMatchObject({ status: code, outcome: "in-flight", endedAt: null });
      expect(row?.retryAt).toBe(LATEST_HOLD_MS);
      expect(closed()?.closed?.reason).toBe(`HTTP ${code}`);
      // The body cut: still the no its status said.
      held?.destroy();
      expect(await fetched).toMatchObject({ kind: "refused", status: code });
      expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-closed");
      expect(s.hits("/list")).toHaveLength(1);
      expect(s.hits("/other")).toHaveLength(0);
    },
  );

  it("P20: robots.txt's 403 writes nothing from its head (its own rules decide what it means)", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", html("no", 403));
    s.route("/list", html("fine"));
    const f = h.fetcher();
    await f.fetch({ url: s.url("/list"), purpose: "page" });
    const robotsRow = h.ports.log.rows.find((r) => r.entry.url === s.url("/robots.txt"));
    expect(robotsRow?.retryAt).toBeUndefined();
  });

  it("P15: a 200's head asks for nothing: nothing is written before its body", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", html("fine", 200, { "retry-after": "8" }));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect([...h.ports.log.sites.values()].every((x) => x.notBefore === undefined)).toBe(true);
  });
});
