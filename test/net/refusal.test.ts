import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type Handler, startFleet } from "../fleet/fleet.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots, status } from "../fleet/routes.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";

let h: Harness;
afterEach(async () => h?.close());

const DIR = join(import.meta.dirname, "../fixtures/refusal");

/** The fixture pages (test/fixtures/refusal, see its PROVENANCE.md) served as they are. */
function fixture(name: string): { handler: Handler; status: number; url?: string } {
  const meta = JSON.parse(readFileSync(join(DIR, `${name}.json`), "utf8")) as {
    status: number;
    headers: Record<string, string>;
    url?: string;
  };
  const bodyFile = readdirSync(DIR).find((f) => f.startsWith(`${name}.`) && !f.endsWith(".json"))!;
  const body = readFileSync(join(DIR, bodyFile));
  const headers: Record<string, string | string[]> = { ...meta.headers };
  if (typeof headers["set-cookie"] === "string")
    headers["set-cookie"] = headers["set-cookie"].split("\n");
  delete headers["content-length"];
  delete headers["content-encoding"];
  const handler: Handler = (_req, res) => {
    res.writeHead(meta.status, headers).end(body);
  };
  return { handler, status: meta.status, ...(meta.url ? { url: meta.url } : {}) };
}

const REFUSALS = [
  "cloudflare-managed-403",
  "cloudflare-legacy-503",
  "cloudflare-1020-403",
  "akamai-denied-403",
  "imperva-incident-200",
  "imperva-js-stub-200",
  "datadome-403",
  "perimeterx-403",
  "aws-waf-captcha-405",
  "aws-waf-challenge-202",
  "sucuri-403",
  "f5-request-rejected-200",
  "kasada-429",
  "anubis-200",
  "vercel-checkpoint-429",
  "generic-waf-403",
  "cloudflare-challenge-200",
  "recaptcha-gate-200",
  "hcaptcha-gate-200",
  // P21: a 503 with a Retry-After whose page names no maintenance, and a maintenance page that
  // asks for proof of a person: each a no, asked once, the site closed for the night.
  "access-denied-retry-after-503",
  "maintenance-verify-human-503",
];
const LOOK_ALIKES = [
  "contact-form-recaptcha-200",
  "contact-page-recaptcha-200",
  "meetings-newsletter-recaptcha-200",
  "records-request-script-only-200",
  "turnstile-login-200",
  "cloudflare-analytics-200",
  "cloudflare-521-outage",
  "cloudflare-522-outage",
  "akamai-invalid-url-400",
  "imperva-async-telemetry-200",
  "datadome-protected-200",
  "f5-cookies-200",
  "docs-generic-phrases-200",
  "help-are-you-a-robot-200",
  // P15: a 503 maintenance page that warns automated requests fail meanwhile: tried again.
  "maintenance-automated-503",
  "maintenance-unavailable-503",
];
const present = (names: string[]) => names.filter((n) => readdirSync(DIR).includes(`${n}.json`));

async function serve(handler: Handler) {
  h = await harness();
  const s = await h.fleet.server();
  s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
  s.route("/bids/", handler);
  s.route("/other", html("other page"));
  return { s, f: h.fetcher() };
}

describe("a site says no (P21)", () => {
  it.each([401, 403])(
    "P21: a plain %i is a no: not retried, and the site is closed for the night",
    async (code) => {
      const { s, f } = await serve(status(code));
      expect(await f.fetch({ url: s.url("/bids/"), purpose: "page" })).toMatchObject({
        kind: "refused",
        status: code,
      });
      expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-closed");
      expect(s.hits("/bids/")).toHaveLength(1);
      expect(s.hits("/other")).toHaveLength(0);
      expect(h.ports.log.entries.at(-1)).toMatchObject({
        outcome: "refused",
        evidence: { provider: "http" },
      });
    },
  );

  it.each(present(REFUSALS))(
    "P21: the challenge page %s is a no, recorded with its provider",
    async (name) => {
      const fx = fixture(name);
      const { s, f } = await serve(fx.handler);
      const out = await f.fetch({ url: s.url("/bids/"), purpose: "page" });
      expect(out.kind).toBe("refused");
      if (out.kind === "refused") {
        expect(out.evidence.provider).not.toBe("");
        expect(h.ports.log.entries.at(-1)?.evidence).toEqual(out.evidence);
      }
      // A challenge is never retried, whatever its status (503, 429 included).
      expect(s.hits("/bids/")).toHaveLength(1);
      expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-closed");
    },
  );

  it("P21: a Cloudflare challenge records the vendor's reference (the Ray ID)", async () => {
    const { s, f } = await serve(fixture("cloudflare-managed-403").handler);
    expect(await f.fetch({ url: s.url("/bids/"), purpose: "page" })).toMatchObject({
      kind: "refused",
      evidence: { provider: "cloudflare", verdict: "challenge", reference: "8f1a2b3c4d5e6f70-CMH" },
    });
  });

  it("P21: a DataDome no whose x-datadome-cid header holds no id records the page's cid", async () => {
    const fx = fixture("datadome-403");
    const { s, f } = await serve((q, res, ctx) => {
      // A relay that mangled the header: over 256 characters, no id.
      res.setHeader("x-datadome-cid", `${"A".repeat(300)}==`);
      void fx.handler(q, res, ctx);
    });
    expect(await f.fetch({ url: s.url("/bids/"), purpose: "page" })).toMatchObject({
      kind: "refused",
      evidence: { provider: "datadome", reference: "AHrlqAAAAAMA1gZrYHNP4MIAAYhtzg==" },
    });
    expect(h.ports.log.entries.at(-1)?.evidence).toMatchObject({
      reference: "AHrlqAAAAAMA1gZrYHNP4MIAAYhtzg==",
    });
  });

  it("P15, P21: a 503 'Access denied' whose Retry-After asks back in 30 s and that names no maintenance is a no: asked once, not again that night, the site's other page not asked", async () => {
    const fx = fixture("access-denied-retry-after-503");
    const { s, f } = await serve((q, res, ctx) => {
      res.setHeader("retry-after", "30");
      void fx.handler(q, res, ctx);
    });
    expect(await f.fetch({ url: s.url("/bids/"), purpose: "page" })).toMatchObject({
      kind: "refused",
      evidence: { provider: "generic", verdict: "suspected" },
    });
    expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-closed");
    expect(s.hits("/bids/")).toHaveLength(1);
    expect(s.hits("/other")).toHaveLength(0);
  });

  it("P15: a maintenance 503 is tried again no sooner than its Retry-After asks, at most twice more", async () => {
    const { s, f } = await serve(fixture("maintenance-automated-503").handler);
    expect((await f.fetch({ url: s.url("/bids/"), purpose: "page" })).kind).toBe("error");
    const hits = s.hits("/bids/");
    expect(hits).toHaveLength(3);
    for (let i = 1; i < hits.length; i++)
      expect(hits[i]!.startedAt - hits[i - 1]!.endedAt).toBeGreaterThanOrEqual(30_000);
  });

  it.each(present(LOOK_ALIKES))("P21: the look-alike %s is not a no", async (name) => {
    const fx = fixture(name);
    const { s, f } = await serve(fx.handler);
    const out = await f.fetch({ url: s.url("/bids/"), purpose: "page" });
    expect(out.kind).not.toBe("refused");
    expect(out.kind).toBe(fx.status >= 200 && fx.status < 300 ? "ok" : "error");
    // An outage page is retried like any 5xx (P15); the site is never closed as a no. Its 5xx
    // after the retries leaves the site down for the night (our rule beside P15): another page
    // there is not asked tonight, and says so as the site down, not as a no.
    expect(s.hits("/bids/")).toHaveLength(fx.status >= 500 ? 3 : 1);
    const other = await f.fetch({ url: s.url("/other"), purpose: "page" });
    expect(other.kind).toBe(fx.status >= 500 ? "site-down" : "ok");
    expect(s.hits("/other")).toHaveLength(fx.status >= 500 ? 0 : 1);
  });
});

/** Real government pages with CAPTCHA scripts (test/fixtures/platforms, see its PROVENANCE.md). */
const PLATFORM_PAGES = [
  "iworq/FL_lakehamilton_iworq_permits_365d_page1.html",
  "ohio-county-html/OH_cuyahoga_board_of_elections_calendar.html",
  "ohio-county-html/OH_neorsd_document_library_agendas.html",
];

describe("a challenge page answered with 200 to a feed URL (P21)", () => {
  /** What each site answers for its first feed; its second feed is a good RSS feed. */
  const CHALLENGES = ["recaptcha-gate-200", "hcaptcha-gate-200", "cloudflare-challenge-200"];
  const READABLE = ["meetings-newsletter-recaptcha-200", "contact-page-recaptcha-200"];

  it("P21: a page that is only a CAPTCHA (reCAPTCHA, hCaptcha) or a Cloudflare interstitial, answered with 200, is a no recorded with its evidence, and the site's second source is not asked that night", async () => {
    const fleet = await startFleet();
    const dir = mkdtempSync(join(tmpdir(), "nor-refusal-200-"));
    try {
      const sites = new Map<string, Awaited<ReturnType<typeof fleet.server>>>();
      const platformHandler = (file: string): Handler => {
        const body = readFileSync(join(DIR, "../platforms", file));
        return (_q, res) => {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
        };
      };
      const first: [string, Handler][] = [
        ...[...CHALLENGES, ...READABLE].map((n): [string, Handler] => [n, fixture(n).handler]),
        ...PLATFORM_PAGES.map((f, i): [string, Handler] => [`platform-${i}`, platformHandler(f)]),
      ];
      for (const [name, handler] of first) {
        const site = await fleet.server();
        site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
        site.route("/feed/1.xml", handler);
        site.route("/feed/2.xml", (_q, res) => {
          res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, 2, name));
        });
        sites.set(name, site);
      }
      const catalog = writeCatalog(
        dir,
        [...sites].flatMap(([name, site]) =>
          [1, 2].map((n) => [
            `id: ${name}-${n}`,
            "government: village-of-test",
            "records: agendas",
            "access: feed",
            `url: ${site.url(`/feed/${n}.xml`)}`,
          ]),
        ),
      );
      const r = await nightCli(catalog, dir, "2026-11-05");
      expect(r.code, r.stderr).toBe(0);

      const db = new Database(join(dir, "nor.db"), { readonly: true });
      const rows = db
        .prepare("select source_id, outcome, reason, evidence, status from night_sources")
        .all() as {
        source_id: string;
        outcome: string;
        reason: string | null;
        evidence: string | null;
        status: number | null;
      }[];
      db.close();
      const row = (id: string) => rows.find((x) => x.source_id === id);

      const want: Record<string, object> = {
        "recaptcha-gate-200": {
          provider: "recaptcha",
          verdict: "challenge",
          marker: 'whole page: g-recaptcha + "verify you are human"',
        },
        "hcaptcha-gate-200": {
          provider: "hcaptcha",
          verdict: "challenge",
          marker: 'whole page: h-captcha + "prove you are human"',
        },
        "cloudflare-challenge-200": {
          provider: "cloudflare",
          verdict: "challenge",
          marker: "_cf_chl_opt + orchestrate/chl_page",
          reference: "8f0e1d2c3b4a5968-CLE",
        },
      };
      for (const name of CHALLENGES) {
        // (a) the no, with the evidence of what matched.
        const no = row(`${name}-1`);
        expect(no, name).toMatchObject({ outcome: "refused", status: 200 });
        expect(JSON.parse(no?.evidence ?? "null"), name).toEqual(want[name]);
        // (b) nothing more to that site tonight: its second source is not asked.
        expect(row(`${name}-2`), name).toMatchObject({
          outcome: "refused",
          reason: expect.stringMatching(/^site said no earlier tonight: ./),
        });
        expect(sites.get(name)?.requests.map((q) => q.path)).toEqual([
          "/robots.txt",
          "/feed/1.xml",
        ]);
      }
      // Pages with a CAPTCHA on the site's own form, and real government pages that load
      // reCAPTCHA: not a no, so the second source is asked and read.
      for (const name of [...READABLE, ...PLATFORM_PAGES.map((_, i) => `platform-${i}`)]) {
        expect(row(`${name}-1`)?.outcome, name).not.toBe("refused");
        expect(row(`${name}-2`)?.outcome, name).toBe("ok");
        expect(sites.get(name)?.hits("/feed/2.xml"), name).toHaveLength(1);
      }
    } finally {
      await fleet.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("a 429's no keeps what its head said, within bounds (P21, P27)", () => {
  it("P21: a 429 whose Retry-After runs to 100 KB is the site's no, its evidence a line, not the header", async () => {
    const { s, f } = await serve(status(429, { "retry-after": "9".repeat(100_000) }));
    const out = await f.fetch({ url: s.url("/bids/"), purpose: "page" });
    expect(out).toMatchObject({
      kind: "refused",
      status: 429,
      evidence: { verdict: "rate-limit" },
    });
    if (out.kind !== "refused") return;
    expect(out.evidence.marker?.startsWith("HTTP 429, Retry-After: 999")).toBe(true);
    expect(out.evidence.marker?.length).toBeLessThanOrEqual(400);
    expect(h.ports.log.entries.at(-1)?.evidence?.marker).toBe(out.evidence.marker);
    expect(s.hits("/bids/")).toHaveLength(1);
  });
});
