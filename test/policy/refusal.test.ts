import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { detectChallenge, type RefusalVerdict, refusalFor } from "../../src/policy/refusal.js";
import { loadFixture } from "./refusal-fixtures.js";

type Expect = Omit<RefusalVerdict, "marker"> & { marker?: string | RegExp };

/** Every vendor page written from the research notes' markers, and what it must be. */
const recognised: [string, Expect][] = [
  [
    "cloudflare-managed-403",
    {
      verdict: "challenge",
      provider: "cloudflare",
      marker: "cf-mitigated: challenge",
      reference: "8f1a2b3c4d5e6f70-CMH",
    },
  ],
  [
    "cloudflare-legacy-503",
    {
      verdict: "challenge",
      provider: "cloudflare",
      marker: "legacy __cf_chl_jschl_tk__=",
      reference: "6a9b8c7d6e5f4a3b-IAD",
    },
  ],
  [
    "cloudflare-1020-403",
    {
      verdict: "block",
      provider: "cloudflare",
      marker: "cf-error-code 1020",
      reference: "7b8c9d0e1f2a3b4c-ORD",
    },
  ],
  [
    "akamai-denied-403",
    {
      verdict: "block",
      provider: "akamai",
      marker: "Access Denied + Reference #18",
      reference: "18.2d351ab8.1730794324.1a2b3c4d",
    },
  ],
  [
    "imperva-incident-200",
    {
      verdict: "block",
      provider: "imperva",
      marker: "Incapsula incident ID",
      reference: "1234000560012345678-987654321012345678",
    },
  ],
  [
    "imperva-js-stub-200",
    { verdict: "challenge", provider: "imperva", marker: "_Incapsula_Resource?SWJIYLWA stub" },
  ],
  [
    "datadome-403",
    {
      verdict: "challenge",
      provider: "datadome",
      marker: "var dd + captcha-delivery.com",
      reference: "AHrlqAAAAAMA1gZrYHNP4MIAAYhtzg==",
    },
  ],
  [
    "perimeterx-403",
    {
      verdict: "challenge",
      provider: "perimeterx",
      marker: /^px page \+ /,
      reference: "4f9c2e1a-9b3d-11ef-8c2a-0242ac120002",
    },
  ],
  [
    "aws-waf-challenge-202",
    { verdict: "challenge", provider: "aws-waf", marker: "x-amzn-waf-action: challenge" },
  ],
  [
    "aws-waf-captcha-405",
    { verdict: "challenge", provider: "aws-waf", marker: "x-amzn-waf-action: captcha" },
  ],
  [
    "sucuri-403",
    {
      verdict: "block",
      provider: "sucuri",
      marker: "Sucuri Access Denied page",
      reference: "BNP005",
    },
  ],
  [
    "f5-request-rejected-200",
    {
      verdict: "block",
      provider: "f5",
      marker: "Request Rejected + support ID",
      reference: "10675488592372850466",
    },
  ],
  ["kasada-429", { verdict: "challenge", provider: "kasada", marker: "429 + x-kpsdk-ct" }],
  ["google-sorry-429", { verdict: "challenge", provider: "google", marker: "google /sorry/ page" }],
  ["anubis-200", { verdict: "challenge", provider: "anubis", marker: "anubis_challenge script" }],
  [
    "vercel-checkpoint-429",
    {
      verdict: "challenge",
      provider: "vercel",
      marker: "x-vercel-mitigated: challenge",
      reference: "cle1::abcde-1730794324123-0123456789ab",
    },
  ],
  [
    "generic-waf-403",
    { verdict: "suspected", provider: "generic", marker: 'status 403 + "automated access"' },
  ],
  [
    "cloudflare-challenge-200",
    {
      verdict: "challenge",
      provider: "cloudflare",
      marker: "_cf_chl_opt + orchestrate/chl_page",
      reference: "8f0e1d2c3b4a5968-CLE",
    },
  ],
  [
    "recaptcha-gate-200",
    {
      verdict: "challenge",
      provider: "recaptcha",
      marker: 'whole page: g-recaptcha + "verify you are human"',
    },
  ],
  [
    "hcaptcha-gate-200",
    {
      verdict: "challenge",
      provider: "hcaptcha",
      marker: 'whole page: h-captcha + "prove you are human"',
    },
  ],
  // P21: a 503 whose Retry-After says when to come back but whose page names no maintenance:
  // the site's no, not the server down (when in doubt, don't send).
  [
    "access-denied-retry-after-503",
    { verdict: "suspected", provider: "generic", marker: 'status 503 + "automated access"' },
  ],
  // P21: a maintenance page that asks the visitor to prove they are a person is still such a page.
  [
    "maintenance-verify-human-503",
    { verdict: "suspected", provider: "generic", marker: 'status 503 + "verify you are human"' },
  ],
];

/** Look-alikes that must never be a refusal (research notes: "never a refusal on its own"). */
const lookalikes: string[] = [
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
  "robots-mentions-challenge-platform",
  "maintenance-automated-503",
  "maintenance-unavailable-503",
];

function check(got: RefusalVerdict | null, want: Expect) {
  expect(got).not.toBeNull();
  const { marker, ...rest } = want;
  expect(got).toMatchObject(rest);
  if (want.reference === undefined) expect(got?.reference).toBeUndefined();
  if (typeof marker === "string") expect(got?.marker).toBe(marker);
  else if (marker) expect(got?.marker).toMatch(marker);
}

describe("P21: vendor challenge and block pages are recognised", () => {
  it.each(recognised)("P21: %s", (name, want) => {
    const r = loadFixture(name);
    check(detectChallenge(r), want);
    check(refusalFor(r), want);
  });

  it("P21: every fixture on disk has an expectation in this file", () => {
    const dir = fileURLToPath(new URL("../fixtures/refusal/", import.meta.url));
    const names = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.slice(0, -".json".length))
      .sort();
    const known = [...recognised.map(([n]) => n), ...lookalikes].sort();
    expect(names).toEqual(known);
  });
});

describe("P21: look-alikes are not a no (false positives kept low)", () => {
  it.each(lookalikes)("P21: %s is not a refusal", (name) => {
    const r = loadFixture(name);
    expect(detectChallenge(r)).toBeNull();
    expect(refusalFor(r)).toBeNull();
  });

  it("P21: x-datadome: protected on a 1 MB page is not a refusal", () => {
    const r = loadFixture("datadome-protected-200");
    const html = new TextDecoder().decode(r.body as Uint8Array);
    const big = html.replace(
      "</main>",
      `${"<p>Minutes of the regular meeting.</p>\n".repeat(28_000)}</main>`,
    );
    expect(big.length).toBeGreaterThan(1_000_000);
    expect(detectChallenge({ ...r, body: big })).toBeNull();
    expect(refusalFor({ ...r, body: big })).toBeNull();
  });
});
