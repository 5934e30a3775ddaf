/**
 * P21 rule by rule: the combinations each vendor rule needs, the body windows (1 MiB vendor,
 * 64 KB generic), decoding, and the presence-only markers that must never count alone.
 */
import { describe, expect, it } from "vitest";
import { prepare } from "../../src/policy/refusal/prepare.js";
import { detectChallenge, type RefusalInput, refusalFor } from "../../src/policy/refusal.js";
import { loadFixture } from "./refusal-fixtures.js";

const URL_ = "https://www.example-county.gov/bids/";
const HTML = { "content-type": "text/html; charset=utf-8" };

function resp(
  status: number,
  body: string,
  headers: Record<string, string> = HTML,
  url = URL_,
): RefusalInput {
  return { status, headers, body, url };
}

function without(r: RefusalInput, ...names: string[]): RefusalInput {
  const headers = { ...r.headers };
  for (const n of names) delete headers[n];
  return { ...r, headers };
}

function text(r: RefusalInput): string {
  return typeof r.body === "string" ? r.body : new TextDecoder().decode(r.body);
}

describe("P21: vendor pages are recognised by their body when the header is missing", () => {
  const rows: [string, string[], string, string][] = [
    [
      "cloudflare-managed-403",
      ["cf-mitigated"],
      "cloudflare",
      "_cf_chl_opt + orchestrate/chl_page",
    ],
    ["aws-waf-challenge-202", ["x-amzn-waf-action"], "aws-waf", "gokuProps + challenge.js"],
    ["aws-waf-captcha-405", ["x-amzn-waf-action"], "aws-waf", "gokuProps + captcha.js"],
    ["kasada-429", ["x-kpsdk-ct", "x-kpsdk-r"], "kasada", "429 + ips.js KP_UIDz"],
    ["vercel-checkpoint-429", ["x-vercel-mitigated"], "vercel", "Vercel Security Checkpoint"],
    ["sucuri-403", ["x-sucuri-block"], "sucuri", "Sucuri Access Denied page"],
  ];
  it.each(rows)("P21: %s without %j", (name, drop, provider, marker) => {
    expect(detectChallenge(without(loadFixture(name), ...drop))).toMatchObject({
      provider,
      marker,
    });
  });

  it("P21: Google's page on another URL is still recognised by its sentence", () => {
    const r = { ...loadFixture("google-sorry-429"), url: URL_ };
    expect(detectChallenge(r)).toMatchObject({
      provider: "google",
      marker: "unusual traffic from your computer network",
    });
  });

  it("P21: the Cloudflare challenge markup is a challenge at any status, 200 included", () => {
    const r = without(loadFixture("cloudflare-managed-403"), "cf-mitigated");
    for (const status of [200, 202, 403, 503]) {
      expect(detectChallenge({ ...r, status })).toEqual({
        verdict: "challenge",
        provider: "cloudflare",
        marker: "_cf_chl_opt + orchestrate/chl_page",
        reference: "8f1a2b3c4d5e6f70-CMH",
      });
    }
  });
});

describe("P21: Tier 1 headers are decisive at any status", () => {
  const rows: [Record<string, string>, number, string][] = [
    [{ "cf-mitigated": "challenge" }, 200, "cloudflare"],
    [{ "CF-Mitigated": " Challenge " }, 403, "cloudflare"],
    [{ "x-amzn-waf-action": "challenge" }, 202, "aws-waf"],
    [{ "x-amzn-waf-action": "captcha" }, 405, "aws-waf"],
    [{ "x-vercel-mitigated": "challenge" }, 429, "vercel"],
  ];
  it.each(rows)("P21: %j at %i → %s (empty body too)", (headers, status, provider) => {
    expect(detectChallenge(resp(status, "", headers))).toMatchObject({
      verdict: "challenge",
      provider,
    });
  });

  it("P21: other values of those headers, and a 202 without the header, are nothing", () => {
    expect(detectChallenge(resp(200, "", { "cf-mitigated": "none" }))).toBeNull();
    expect(detectChallenge(resp(200, "", { "x-amzn-waf-action": "allow" }))).toBeNull();
    expect(
      refusalFor(resp(202, '{"status":"accepted"}', { "content-type": "application/json" })),
    ).toBeNull();
  });
});

describe("P21: combinations, not single markers", () => {
  it("P21: Cloudflare 1015 at 429 is a block; a 1xxx config code or a 5xx is an outage", () => {
    const page = (code: string) =>
      `<div id="cf-wrapper"><h1><span data-translate="error">Error</span><span class="cf-error-code">${code}</span></h1></div>`;
    expect(detectChallenge(resp(429, page("1015")))).toMatchObject({
      verdict: "block",
      marker: "cf-error-code 1015",
    });
    expect(detectChallenge(resp(403, page("1003")))).toBeNull();
    expect(refusalFor(resp(403, page("1003")))).toEqual({
      verdict: "block",
      provider: "http",
      marker: "status 403",
    });
    expect(refusalFor(resp(503, `${page("1020")}<p>Access denied</p>`))).toBeNull(); // outage stops Tier 3
    expect(refusalFor(resp(502, page("502")))).toBeNull();
  });

  it("P21: the newer Cloudflare block layout (no cf-error-code class) is read too", () => {
    const body =
      '<h1><span data-translate="error">Error</span><span>1020</span></h1><h2>Access denied</h2>';
    expect(detectChallenge(resp(403, body))).toMatchObject({
      provider: "cloudflare",
      marker: "cf-error-code 1020",
    });
  });

  it("P21: _cf_chl_opt outside a <script> (e.g. quoted in an article) does not count", () => {
    const body =
      "<p>window._cf_chl_opt = /cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1</p>";
    expect(detectChallenge(resp(403, body))).toBeNull();
  });

  it("P21: the Cloudflare analytics snippet on a 403 is a plain 403, never a challenge", () => {
    const r = { ...loadFixture("cloudflare-analytics-200"), status: 403 };
    expect(detectChallenge(r)).toBeNull();
    expect(refusalFor(r)).toEqual({ verdict: "block", provider: "http", marker: "status 403" });
  });

  it("P21: Akamai: #18 needs 403 and the Access Denied title; #9/#3 on a 403 are plain 403s", () => {
    const denied = loadFixture("akamai-denied-403");
    expect(detectChallenge({ ...denied, status: 200 })).toBeNull();
    const ref9 = { ...loadFixture("akamai-invalid-url-400"), status: 403 };
    expect(detectChallenge(ref9)).toBeNull();
    expect(refusalFor(ref9)).toMatchObject({ provider: "http" });
    const plain = text(denied)
      .replaceAll("&#", "&#")
      .replace(/&#(\d+);/g, (_, d) => String.fromCharCode(Number(d)));
    expect(detectChallenge(resp(403, plain))).toMatchObject({
      provider: "akamai",
      reference: "18.2d351ab8.1730794324.1a2b3c4d",
    });
  });

  it("P21: Akamai Bot Manager interstitials", () => {
    expect(
      detectChallenge(
        resp(200, '<div id="sec-if-cpt-container"><div class="behavioral-content"></div></div>'),
      ),
    ).toMatchObject({ provider: "akamai", verdict: "challenge" });
    expect(
      detectChallenge(
        resp(200, '<title>Challenge Page</title><script src="/_sec/sbsd/init.js"></script>'),
      ),
    ).toMatchObject({ provider: "akamai" });
    expect(
      detectChallenge(resp(200, "<title>Challenge Page</title><p>Our climbing challenge!</p>")),
    ).toBeNull();
  });

  it("P21: Imperva stub must be small, synchronous and empty", () => {
    const stub = text(loadFixture("imperva-js-stub-200"));
    expect(detectChallenge(resp(200, stub.replace('f3">', 'f3" async>')))).toBeNull();
    expect(detectChallenge(resp(200, stub.replace(",719d", "&ns=1&cb=12,719d")))).toBeNull();
    expect(
      detectChallenge(resp(200, stub.replace("<body>", "<body><p>Meeting minutes</p>"))),
    ).toBeNull();
    expect(
      detectChallenge(resp(200, stub.replace("<body>", `<body><!--${"x".repeat(3000)}-->`))),
    ).toBeNull();
  });

  it("P21: DataDome: x-dd-b counts only on 401/403; 't':'bv' is a hard block; the XHR JSON counts", () => {
    expect(detectChallenge(resp(403, "", { "x-dd-b": "2", "x-datadome-cid": "AbC==" }))).toEqual({
      verdict: "challenge",
      provider: "datadome",
      marker: "status 403 + x-dd-b",
      reference: "AbC==",
    });
    expect(
      detectChallenge(resp(200, "<html>ok</html>", { "x-dd-b": "1", "x-datadome": "protected" })),
    ).toBeNull();
    const banned = text(loadFixture("datadome-403")).replace("'t':'fe'", "'t':'bv'");
    expect(detectChallenge(resp(403, banned))).toMatchObject({
      verdict: "block",
      provider: "datadome",
    });
    const json =
      '{"url":"https://geo.captcha-delivery.com/captcha/?initialCid=AHrlqAAAA%3D%3D&hash=2211&cid=Qx8&t=fe"}';
    expect(detectChallenge(resp(403, json, { "content-type": "application/json" }))).toMatchObject({
      provider: "datadome",
      reference: "AHrlqAAAA%3D%3D",
    });
  });

  it("P21: PerimeterX needs the page, the vendor and a refusal status; the sensor alone is nothing", () => {
    const px = loadFixture("perimeterx-403");
    expect(detectChallenge({ ...px, status: 200 })).toBeNull();
    const sensor =
      '<html><body><h1>Agendas</h1><script>window._pxAppId="PXa1b2c3d4";</script><script src="//client.perimeterx.net/PXa1b2c3d4/main.min.js"></script></body></html>';
    expect(refusalFor(resp(200, sensor))).toBeNull();
    const abr =
      '{"appId":"PXa1b2c3d4","jsClientSrc":"/a1b2c3d4/init.js","firstPartyEnabled":true,"vid":"","uuid":"4f9c2e1a-9b3d-11ef-8c2a-0242ac120002","hostUrl":"/a1b2c3d4/xhr","blockScript":"/a1b2c3d4/captcha/captcha.js?a=c"}';
    expect(detectChallenge(resp(403, abr, { "content-type": "application/json" }))).toEqual({
      verdict: "challenge",
      provider: "perimeterx",
      marker: "ABR JSON appId + blockScript",
      reference: "4f9c2e1a-9b3d-11ef-8c2a-0242ac120002",
    });
  });

  it("P21: Kasada needs a 429; its headers on a 200 are nothing", () => {
    const k = loadFixture("kasada-429");
    expect(detectChallenge({ ...k, status: 200 })).toBeNull();
  });

  it("P21: a redirect to a gate is itself the evidence", () => {
    const loc = (status: number, location: string) => resp(status, "", { location });
    expect(detectChallenge(loc(307, "/.within.website/?redir=%2Fbids%2F"))).toMatchObject({
      provider: "anubis",
    });
    expect(
      detectChallenge(loc(302, "https://www.google.com/sorry/index?continue=x")),
    ).toMatchObject({ provider: "google" });
    expect(
      detectChallenge(loc(302, "https://geo.captcha-delivery.com/captcha/?initialCid=x")),
    ).toMatchObject({ provider: "datadome" });
    expect(detectChallenge(loc(302, "/bids/page2"))).toBeNull();
    expect(detectChallenge(loc(302, "https://example.com/sorry/"))).toBeNull();
  });

  it("P21: Distil, DDoS-Guard and LinkedIn 999", () => {
    expect(
      detectChallenge(
        resp(
          403,
          '<title>Pardon Our Interruption</title><img src="https://cdn.distilnetworks.com/images/anomaly-detected.png">',
        ),
      ),
    ).toMatchObject({ provider: "distil" });
    expect(
      detectChallenge(
        resp(200, "<title>Pardon Our Interruption</title><p>Site maintenance tonight.</p>"),
      ),
    ).toBeNull();
    expect(
      detectChallenge(resp(403, "<title>DDoS-Guard</title>", { ...HTML, server: "ddos-guard" })),
    ).toMatchObject({ provider: "ddos-guard" });
    expect(
      detectChallenge(resp(200, "<title>Home</title>", { ...HTML, server: "ddos-guard" })),
    ).toBeNull();
    expect(detectChallenge(resp(999, "", {}, "https://www.linkedin.com/company/x"))).toMatchObject({
      provider: "linkedin",
    });
    expect(detectChallenge(resp(999, "", {}, URL_))).toBeNull();
  });
});

describe("P21: Tier 3 (generic) is only for small refusal-status pages", () => {
  const phrase =
    "<html><head><title>Error</title></head><body><h1>Access Denied</h1></body></html>";
  const rows: [number, boolean][] = [
    [401, true],
    [403, true],
    [405, true],
    [429, true],
    [503, true],
    [200, false],
    [202, false],
    [400, false],
    [404, false],
    [500, false],
  ];
  it.each(rows)("P21: a short 'Access Denied' page at %i → suspected %s", (status, yes) => {
    const v = detectChallenge(resp(status, phrase));
    if (yes)
      expect(v).toEqual({
        verdict: "suspected",
        provider: "generic",
        marker: `status ${status} + "access denied"`,
      });
    else expect(v).toBeNull();
  });

  it("P21: a long page (≥ 1,500 visible characters) with the phrase is not suspected", () => {
    const long = `<h1>Access denied</h1><p>${"Agenda item. ".repeat(200)}</p>`;
    expect(detectChallenge(resp(403, long))).toBeNull();
    // …but scripts and styles do not count as visible text.
    const padded = `<h1>Access denied</h1><script>${"var x=1;".repeat(2000)}</script><style>${"p{}".repeat(2000)}</style>`;
    expect(detectChallenge(resp(403, padded))).toMatchObject({ verdict: "suspected" });
  });

  it("P21: plain 429 and 503 are for the retry path, plain 401/403 are http blocks", () => {
    expect(
      refusalFor(resp(429, "<h1>Too Many Requests</h1>", { ...HTML, "retry-after": "30" })),
    ).toBeNull();
    expect(refusalFor(resp(503, "<h1>Service Unavailable</h1>"))).toBeNull();
    expect(refusalFor(resp(401, ""))).toEqual({
      verdict: "block",
      provider: "http",
      marker: "status 401",
    });
    expect(refusalFor(resp(403, "<h1>Forbidden</h1>"))).toEqual({
      verdict: "block",
      provider: "http",
      marker: "status 403",
    });
    expect(refusalFor(resp(404, "<h1>Not found</h1>"))).toBeNull();
  });
});

describe("P21: preparation (research notes §2)", () => {
  it("P21: vendor markers past 300 KB are found (branded templates); nothing past 1 MiB is read", () => {
    const cf = without(loadFixture("cloudflare-managed-403"), "cf-mitigated");
    const shell = (padKb: number) =>
      `<html><head><style>${"a{}".repeat((padKb * 1024) / 3)}</style></head><body>${text(cf)}</body></html>`;
    expect(detectChallenge({ ...cf, body: shell(350) })).toMatchObject({ provider: "cloudflare" });
    expect(detectChallenge({ ...cf, body: new TextEncoder().encode(shell(350)) })).toMatchObject({
      provider: "cloudflare",
    });
    expect(detectChallenge({ ...cf, body: shell(1100) })).toBeNull();
  });

  it("P21: generic phrases past 64 KB are not read", () => {
    const body = `<!--${"x".repeat(70 * 1024)}--><h1>Access denied</h1>`;
    expect(detectChallenge(resp(403, body))).toBeNull();
  });

  it("P21: text/plain bodies are skipped, headers still count", () => {
    const plain = { "content-type": "text/plain" };
    const r = loadFixture("robots-mentions-challenge-platform");
    expect(detectChallenge({ ...r, status: 403 })).toBeNull();
    expect(detectChallenge(resp(403, "Incapsula incident ID: 1-2", plain))).toBeNull();
    expect(detectChallenge(resp(403, "", { ...plain, "cf-mitigated": "challenge" }))).toMatchObject(
      { provider: "cloudflare" },
    );
    expect(detectChallenge(resp(403, "", { ...plain, "x-sucuri-block": "BNP005" }))).toEqual({
      verdict: "block",
      provider: "sucuri",
      marker: "x-sucuri-block",
      reference: "BNP005",
    });
  });

  it("P21: a Latin-1 body (not UTF-8) and a windows-1252 charset are decoded", () => {
    const f5 = text(loadFixture("f5-request-rejected-200")).replace("<body>", "<body>Caf\u00e9 ");
    const latin1 = Uint8Array.from([...f5].map((c) => c.charCodeAt(0)));
    expect(
      detectChallenge(resp(200, latin1 as unknown as string, { "content-type": "text/html" })),
    ).toMatchObject({ provider: "f5" });
    expect(
      detectChallenge({
        ...resp(200, ""),
        body: latin1,
        headers: { "content-type": "text/html; charset=windows-1252" },
      }),
    ).toMatchObject({ provider: "f5", reference: "10675488592372850466" });
    expect(
      detectChallenge({
        ...resp(200, ""),
        body: latin1,
        headers: { "content-type": "text/html; charset=x-bogus" },
      }),
    ).toMatchObject({ provider: "f5" });
  });

  it("P21: header names in any case are accepted", () => {
    expect(
      detectChallenge(
        resp(200, "", { "X-Vercel-Mitigated": "challenge", "X-Vercel-Id": "iad1::x" }),
      ),
    ).toEqual({
      verdict: "challenge",
      provider: "vercel",
      marker: "x-vercel-mitigated: challenge",
      reference: "iad1::x",
    });
  });
});

describe("P21: a page that quotes a vendor's block message is not that block page", () => {
  /** A city's notices page: a help notice quoting `quote`, and thirty notices listed. */
  const notices = (quote: string) =>
    `<!doctype html><html><head><title>Notices | City of Example</title></head><body><nav><a href="/">Home</a> <a href="/council">Council</a></nav><main><h1>Notices</h1><p>Website notice: some visitors who use a VPN see a page that says ${quote} If that happens, call the clerk's office and read us the id it shows.</p><ul>${Array.from(
      { length: 30 },
      (_, i) =>
        `<li><a href="/notices/${i}">Public hearing on zoning amendment ${i}</a>, posted December ${(i % 28) + 1}, 2026</li>`,
    ).join("")}</ul></main></body></html>`;
  const QUOTES: [string, string][] = [
    ["imperva", "“Request unsuccessful. Incapsula incident ID: 0-12345”."],
    [
      "f5",
      "“The requested URL was rejected. Please consult with your administrator. Your support ID is: 1234567890123456789”.",
    ],
    ["google", "“Our systems have detected unusual traffic from your computer network”."],
    ["sucuri", "“Access Denied - Sucuri Website Firewall” with a Block ID."],
  ];
  it.each(QUOTES)(
    "P21: a notices page answered 200 that quotes %s's block message is read, not a no",
    (_vendor, quote) => {
      expect(refusalFor(resp(200, notices(quote)))).toBeNull();
    },
  );

  it.each(QUOTES)(
    "P21: %s's own block page, small, is still a no at 200, and so is the long page on a refusal status",
    (vendor, quote) => {
      const small = `<html><head><title>Request Rejected</title></head><body><p>${quote}</p></body></html>`;
      expect(refusalFor(resp(200, small))).toMatchObject({ provider: vendor });
      expect(refusalFor(resp(403, notices(quote)))).toMatchObject({ provider: vendor });
    },
  );
});

describe("P21: the vendor's reference is an id, never whatever a page puts there", () => {
  const dd = (cid: string) =>
    `<html><body><p id="cmsg">Please enable JS and disable any ad blocker</p><script>var dd={'rt':'c','cid':'${cid}','hsh':'ABC','t':'fe','host':'geo.captcha-delivery.com'}</script><script src="https://ct.captcha-delivery.com/c.js"></script></body></html>`;

  it("P21: a reference holding terminal controls, or longer than any id, is left out; the no stands", () => {
    for (const cid of ["\u001b]0;owned\u0007\u001b[2JAHrl", `AHrl${"A".repeat(5000)}`, "AH rl"]) {
      const v = refusalFor(resp(403, dd(cid)));
      expect(v).toMatchObject({ verdict: "challenge", provider: "datadome" });
      expect(v?.reference).toBeUndefined();
    }
    const header = refusalFor(
      resp(403, "<p>blocked</p>", { ...HTML, "x-dd-b": "1", "x-datadome-cid": "x".repeat(300) }),
    );
    expect(header).toMatchObject({ provider: "datadome" });
    expect(header?.reference).toBeUndefined();
  });

  it("P21: a real id is kept as it is", () => {
    expect(refusalFor(resp(403, dd("AHrlqAAAAAMA1gZrYHNP4MIAAYhtzg==")))?.reference).toBe(
      "AHrlqAAAAAMA1gZrYHNP4MIAAYhtzg==",
    );
  });
});

describe("P21: a vendor's block page the site dressed in its own template is still a no", () => {
  /**
   * F5's WAF lets the site replace its default block page with one "with corporate branding,
   * helpdesk contact information" (F5 Silverline: any HTML under 50 KB, answered 200 unless
   * set otherwise), which keeps the sentence and must carry the support ID. A city's: its
   * header, menu, the sentence and the id, the help desk, and its footer.
   */
  const menu = [
    "Home",
    "Government",
    "Mayor's Office",
    "City Council",
    "Departments",
    "Public Safety",
    "Parks and Recreation",
    "Utilities",
    "Residents",
    "Business",
    "Visitors",
    "How Do I…",
  ];
  const branded = `<!doctype html><html><head><title>Request Rejected | City of Example, Ohio</title><style>body{font-family:sans-serif}</style></head><body>
<header><img alt="City of Example seal" src="data:image/png;base64,AAAA"><p>City of Example, Ohio: serving our residents since 1851</p>
<nav>${menu.map((m) => `<a href="/${m.toLowerCase().replace(/\W+/g, "-")}">${m}</a>`).join(" ")}</nav></header>
<main><h1>Request Rejected</h1><p>The requested URL was rejected. Please consult with your administrator.</p><p>Your support ID is: 10675488592372850466</p>
<p>If you believe you reached this page in error, please contact the City of Example Information Technology Help Desk between 8:00 a.m. and 5:00 p.m., Monday through Friday, except on City holidays. Call 614-555-0100 or send an e-mail to helpdesk@example-city.gov, and include the support ID shown above, the address of the page you were trying to reach, and the date and time you saw this message, so that our staff can find your request and restore your access as quickly as possible.</p>
<p>For emergencies, always dial 9-1-1. For non-emergency police matters, call 614-555-0111. To report a water main break, a downed tree or a street light out after hours, call the Public Service Department's 24-hour line at 614-555-0122.</p></main>
<footer><p>City of Example, 100 Main Street, Example, Ohio 43000. City Hall is open Monday through Friday from 8:00 a.m. to 5:00 p.m. Main line 614-555-0199.</p><p>Copyright © 2026 City of Example. All rights reserved. Accessibility statement. Privacy policy. Website disclaimer. Public records policy. Nondiscrimination notice. Employment opportunities. Sign up for City news and alerts. Site map. Translate this page. Contact us. Follow the City on social media.</p></footer>
</body></html>`;

  it("P21: F5's block page in the city's template, answered 200 with 1,500 characters of text or more, is a no (f5) with its support ID", () => {
    expect(prepare(resp(200, branded)).text.length).toBeGreaterThanOrEqual(1500);
    expect(refusalFor(resp(200, branded))).toMatchObject({
      verdict: "block",
      provider: "f5",
      reference: "10675488592372850466",
    });
  });
});

describe("P15, P21: a 503 that says it is temporary is the server down for now, not a no", () => {
  const small = (p: string) => `<html><head><title>Notice</title></head><body>${p}</body></html>`;
  const maintenance = small(
    "<h1>Down for maintenance</h1><p>Automated requests will fail until the work is done.</p>",
  );

  it("P15, P21: a small maintenance page at 503 that mentions automated requests is no refusal, with or without Retry-After", () => {
    expect(refusalFor(resp(503, maintenance))).toBeNull();
    expect(refusalFor(resp(503, maintenance, { ...HTML, "retry-after": "120" }))).toBeNull();
    const scheduled = small(
      "<p>Scheduled maintenance tonight. Access denied to automated access.</p>",
    );
    expect(refusalFor(resp(503, scheduled))).toBeNull();
    expect(refusalFor(loadFixture("maintenance-automated-503"))).toBeNull();
  });

  it("P21: a Retry-After alone makes no 503 temporary: a page that names no maintenance and turns automated requests away is a suspected no", () => {
    const denied = small("<h1>Access denied</h1><p>Automated access is not allowed.</p>");
    const blocked = small(
      "<h1>Request blocked</h1><p>Automated requests are blocked. Try again later.</p>",
    );
    for (const after of ["30", "3600", "Sun, 06 Dec 2026 09:00:00 GMT"]) {
      expect(refusalFor(resp(503, denied, { ...HTML, "retry-after": after }))).toMatchObject({
        verdict: "suspected",
        provider: "generic",
        marker: 'status 503 + "automated access"',
      });
      expect(refusalFor(resp(503, blocked, { ...HTML, "retry-after": after }))).toMatchObject({
        verdict: "suspected",
      });
    }
    const human = small("<h1>Please verify you are human</h1>");
    expect(refusalFor(resp(503, human, { ...HTML, "retry-after": "30" }))).toMatchObject({
      verdict: "suspected",
      provider: "generic",
      marker: 'status 503 + "verify you are human"',
    });
  });

  it("P21: a maintenance page that asks the visitor to prove they are a person, or says they are blocked, is still a suspected no", () => {
    const human = small(
      "<h1>Down for maintenance</h1><p>Please verify you are human to continue.</p>",
    );
    expect(refusalFor(resp(503, human))).toMatchObject({
      verdict: "suspected",
      marker: 'status 503 + "verify you are human"',
    });
    expect(refusalFor(resp(503, human, { ...HTML, "retry-after": "30" }))).toMatchObject({
      verdict: "suspected",
    });
    const robot = small(
      "<h1>Scheduled maintenance</h1><p>Are you a robot? Automated access is paused.</p>",
    );
    expect(refusalFor(resp(503, robot))).toMatchObject({
      marker: 'status 503 + "are you a robot"',
    });
    const blocked = small(
      "<h1>Under maintenance</h1><p>You have been blocked: automated requests are refused.</p>",
    );
    expect(refusalFor(resp(503, blocked))).toMatchObject({ verdict: "suspected" });
    const bot = small("<h1>System maintenance</h1><p>Bot detected. Access denied.</p>");
    expect(refusalFor(resp(503, bot))).toMatchObject({ verdict: "suspected" });
    const person = small(
      "<h1>Planned maintenance</h1><p>Automated access is paused. Please prove you\u2019re a person to continue.</p>",
    );
    expect(refusalFor(resp(503, person))).toMatchObject({
      verdict: "suspected",
      marker: 'status 503 + "automated access"',
    });
    const checkbox = small(
      "<h1>Site maintenance</h1><p>Access denied to automated access.</p><label><input type=checkbox> I'm not a robot</label>",
    );
    expect(refusalFor(resp(503, checkbox))).toMatchObject({ verdict: "suspected" });
    expect(refusalFor(loadFixture("maintenance-verify-human-503"))).toMatchObject({
      verdict: "suspected",
      marker: 'status 503 + "verify you are human"',
    });
  });

  it("P15, P21: 'temporarily unavailable for maintenance' is maintenance wording too", () => {
    const page = small(
      "<h1>Temporarily unavailable for maintenance</h1><p>Automated queries will not work until 5 a.m.</p>",
    );
    expect(refusalFor(resp(503, page))).toBeNull();
    expect(refusalFor(loadFixture("maintenance-unavailable-503"))).toBeNull();
  });

  it("P21: a 503 block page that says nothing of a return is still suspected, and a maintenance word lets only a 503 off", () => {
    const blocked = small("<h1>You have been blocked</h1><p>Automated requests are refused.</p>");
    expect(refusalFor(resp(503, blocked))).toMatchObject({ verdict: "suspected" });
    const denied = small("<h1>Access denied</h1><p>Scheduled maintenance is over.</p>");
    expect(refusalFor(resp(403, denied))).toMatchObject({ verdict: "suspected" });
    expect(refusalFor(resp(429, denied, { ...HTML, "retry-after": "30" }))).toMatchObject({
      verdict: "suspected",
    });
  });

  it("P21: a vendor's own 503 challenge page is a no whatever maintenance words or Retry-After it carries", () => {
    const cf = loadFixture("cloudflare-legacy-503");
    const page = text(cf).replace("</body>", "<p>Down for maintenance.</p></body>");
    expect(
      refusalFor({ ...cf, body: page, headers: { ...cf.headers, "retry-after": "60" } }),
    ).toMatchObject({ verdict: "challenge", provider: "cloudflare" });
  });
});

describe("P21: a DataDome cid header that holds no id falls back to the page's", () => {
  const dd = (cid: string) =>
    `<html><body><script>var dd={'rt':'c','cid':'${cid}','hsh':'ABC','t':'fe','host':'geo.captcha-delivery.com'}</script><script src="https://ct.captcha-delivery.com/c.js"></script></body></html>`;
  it.each([
    ["with a space", "AH rl=="],
    ["over 256 characters", "x".repeat(300)],
    ["with a control character", "AHrl\u0007=="],
  ])("P21: a header %s: the page's cid is the reference", (_what, bad) => {
    const v = refusalFor(
      resp(403, dd("AHrlqAAAAAMA1gZrYHNP4MIAAYhtzg=="), { ...HTML, "x-datadome-cid": bad }),
    );
    expect(v).toMatchObject({ verdict: "challenge", provider: "datadome" });
    expect(v?.reference).toBe("AHrlqAAAAAMA1gZrYHNP4MIAAYhtzg==");
  });

  it("P21: a valid header still comes first", () => {
    const v = refusalFor(resp(403, dd("PAGEcid=="), { ...HTML, "x-datadome-cid": "HEADERcid==" }));
    expect(v?.reference).toBe("HEADERcid==");
  });
});

describe("P21: a Cloudflare cf-ray header that holds no id falls back to the Ray ID the page prints", () => {
  it.each([
    ["sent twice (joined with a comma)", "7b8c9d0e1f2a3b4c-ORD, 7b8c9d0e1f2a3b4c-ORD"],
    ["over 256 characters", "x".repeat(300)],
    ["with a control character", "7b8c9d0e1f2a3b4c\u0007-ORD"],
  ])("P21: a block page (1020) whose cf-ray is %s records the page's Ray ID", (_what, bad) => {
    const cf = loadFixture("cloudflare-1020-403");
    const v = refusalFor({ ...cf, headers: { ...cf.headers, "cf-ray": bad } });
    expect(v).toMatchObject({ verdict: "block", provider: "cloudflare" });
    expect(v?.reference).toBe("7b8c9d0e1f2a3b4c");
  });

  it("P21: a challenge told by cf-mitigated whose cf-ray holds no id records the page's Ray ID", () => {
    const cf = loadFixture("cloudflare-managed-403");
    const v = refusalFor({
      ...cf,
      headers: { ...cf.headers, "cf-ray": "8f1a2b3c4d5e6f70-CMH, 8f1a2b3c4d5e6f70-CMH" },
    });
    expect(v).toMatchObject({ verdict: "challenge", provider: "cloudflare" });
    expect(v?.reference).toBe("8f1a2b3c4d5e6f70");
  });

  it("P21: a valid cf-ray still comes first", () => {
    expect(refusalFor(loadFixture("cloudflare-1020-403"))?.reference).toBe("7b8c9d0e1f2a3b4c-ORD");
    expect(refusalFor(loadFixture("cloudflare-managed-403"))?.reference).toBe(
      "8f1a2b3c4d5e6f70-CMH",
    );
  });
});
