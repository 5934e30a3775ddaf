import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Handler } from "../fleet/fleet.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots, status } from "../fleet/routes.js";

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
];
const LOOK_ALIKES = [
  "contact-form-recaptcha-200",
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

  it.each(present(LOOK_ALIKES))("P21: the look-alike %s is not a no", async (name) => {
    const fx = fixture(name);
    const { s, f } = await serve(fx.handler);
    const out = await f.fetch({ url: s.url("/bids/"), purpose: "page" });
    expect(out.kind).not.toBe("refused");
    expect(out.kind).toBe(fx.status >= 200 && fx.status < 300 ? "ok" : "error");
    // An outage page is retried like any 5xx (P15); the site stays open.
    expect(s.hits("/bids/")).toHaveLength(fx.status >= 500 ? 3 : 1);
    expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("ok");
  });
});
