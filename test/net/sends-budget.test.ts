import { afterEach, describe, expect, it } from "vitest";
import { requestKey, type SendIntent } from "../../src/net/journal.js";
import { MemoryArchive } from "../../src/net/memory-ports.js";
import { SENDS_USED_UP } from "../../src/net/steps/site-gate.js";
import { originOf, siteOf } from "../../src/policy/site.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots, sequence, status } from "../fleet/routes.js";

/**
 * P15 as the site sees it, with the checker's own deaths in the count: sends its crashes cut
 * short are sends, numbered as the site saw them, so the last allowed one is judged as the
 * last (a 429 there is the site's no, P21), and a robots.txt whose sends the checker used up
 * is the checker's failure, never the site's robots.txt unavailable (P20).
 */
const NIGHT = "2026-11-05";
let h: Harness;
afterEach(async () => h?.close());

/** `n` sends of `url` tonight that the checker's own end cut short (rows interrupted). */
async function cutShort(url: string, purpose: SendIntent["purpose"], n: number): Promise<void> {
  const j = h.ports.journal;
  const intent: SendIntent = {
    night: NIGHT,
    key: requestKey({ method: "GET", url }),
    method: "GET",
    url,
    site: siteOf(url),
    origin: originOf(url),
    purpose,
    gapMs: 2000,
    replayAllowed: true,
  };
  for (let i = 0; i < n; i++) {
    const at = h.clock.now() - 100_000 + i * 10_000;
    const a = await j.admit(intent, "host:1:gone", at);
    if (a.kind !== "go") throw new Error(a.kind);
    await j.complete(a.id, "host:1:gone", {
      endedAt: at + 5,
      status: null,
      outcome: "interrupted",
      failure: "internal: the checker stopped",
      bytes: 0,
      final: false,
      closedEarly: false,
    });
  }
}

describe("sends the checker cut short (P15)", () => {
  it("P15, P21: after two, the third send is the last: its 429 is the site's no, the site closed", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", status(429));
    s.route("/other", html("x"));
    const f = h.fetcher({ night: NIGHT });
    await cutShort(s.url("/list"), "page", 2);
    expect(await f.fetch({ url: s.url("/list"), purpose: "page" })).toMatchObject({
      kind: "refused",
      status: 429,
    });
    const row = h.ports.log.entries.filter((e) => e.url === s.url("/list")).at(-1);
    expect(row).toMatchObject({ attempt: 3, outcome: "refused", status: 429 });
    expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-closed");
    expect(s.hits("/list")).toHaveLength(1);
    expect(s.hits("/other")).toHaveLength(0);
  });

  it("P20: a robots.txt whose three sends the checker cut short is its own failure, not the site's robots.txt unavailable", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", html("x"));
    const f = h.fetcher({ night: NIGHT });
    await cutShort(s.url("/robots.txt"), "robots", 3);
    const o = await f.fetch({ url: s.url("/list"), purpose: "page" });
    expect(o).toMatchObject({ kind: "error", reason: SENDS_USED_UP });
    expect(s.hits("/robots.txt")).toHaveLength(0);
    expect(s.hits("/list")).toHaveLength(0);
  });
});

describe("an answer another machine's archive keeps (P15, P8)", () => {
  it("P15: a request answered in full on its third send, whose copy this machine cannot read back (another machine's data directory), is not sent a fourth time", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route(
      "/list",
      sequence(
        status(503, { "retry-after": "1" }),
        status(503, { "retry-after": "1" }),
        html("<ul><li>x</li></ul>"),
      ),
    );
    // Machine A: 503, 503, then the list, kept in A's archive (its own data directory).
    const a = h.fetcher({ night: NIGHT, holder: "machine-a:1:a" });
    expect(await a.fetch({ url: s.url("/list"), purpose: "page" })).toMatchObject({ kind: "ok" });
    expect(s.hits("/list")).toHaveLength(3);
    // Machine B (the lane taken over, or a frozen worker woken up) asks the same request: the
    // journal has its answer, but B's archive (another data directory) cannot give it back.
    const b = h.fetcher({ night: NIGHT, holder: "machine-b:1:b", archive: new MemoryArchive() });
    const again = await b.fetch({ url: s.url("/list"), purpose: "page" });
    // Three sends were used tonight: the site never sees a fourth (P15 as the site sees it).
    expect(s.hits("/list")).toHaveLength(3);
    expect(again).toMatchObject({ kind: "error", reason: SENDS_USED_UP });
  });
});
