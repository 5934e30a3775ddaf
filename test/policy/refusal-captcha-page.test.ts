/**
 * P21: a challenge page is a no whatever its status, 2xx included, when it is unambiguously
 * one: Cloudflare's interstitial script pair, or a page that is nothing but a CAPTCHA widget
 * (src/policy/refusal/captcha-page.ts). A widget on the site's own form, a CAPTCHA script the
 * page merely loads, or a real government page with either, is not a no.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  CAPTCHA_PAGE_MAX_BYTES,
  CAPTCHA_PAGE_MAX_ITEMS,
  CAPTCHA_PAGE_MAX_TEXT,
} from "../../src/policy/refusal/captcha-page.js";
import { visibleText } from "../../src/policy/refusal/prepare.js";
import { detectChallenge, type RefusalInput, refusalFor } from "../../src/policy/refusal.js";
import { DEFAULT_URL, loadFixture } from "./refusal-fixtures.js";

const HTML = { "content-type": "text/html; charset=utf-8" };

function resp(status: number, body: string, headers: Record<string, string> = HTML): RefusalInput {
  return { status, headers, body, url: DEFAULT_URL };
}

function text(r: RefusalInput): string {
  return typeof r.body === "string" ? r.body : new TextDecoder().decode(r.body);
}

const GATE = text(loadFixture("recaptcha-gate-200"));
const RECAPTCHA = {
  verdict: "challenge",
  provider: "recaptcha",
  marker: 'whole page: g-recaptcha + "verify you are human"',
};

/** A page's "Verify you are human" title and "Please verify you are a human" heading, as nouns. */
const noAsk = (page: string) =>
  page
    .replace("<title>Verify you are human</title>", "<title>Human verification</title>")
    .replace("Please verify you are a human", "Human verification");

/** The reCAPTCHA gate with `extra` added just before its form. */
const withExtra = (extra: string) => GATE.replace("<form", `${extra}<form`);

describe("P21: a page that is only a CAPTCHA is a no at any status", () => {
  it.each([200, 202, 403, 429, 503])("P21: the reCAPTCHA gate at %i is a challenge", (status) => {
    expect(detectChallenge(resp(status, GATE))).toEqual(RECAPTCHA);
    // Before the plain-status rule: the no says what the page was, not just "403".
    expect(refusalFor(resp(status, GATE))).toEqual(RECAPTCHA);
  });

  it("P21: each widget, and an explicitly rendered one, names its provider and marker", () => {
    const page = (widget: string, script = "") =>
      `<html><head><title>Human verification</title>${script}</head><body><h1>Please confirm you are not a robot</h1><form method="post">${widget}<button>Continue</button></form></body></html>`;
    const rows: [string, string, string, string][] = [
      [
        '<div class="cf-turnstile" data-sitekey="0x4AAAAAAAExampleKey"></div>',
        "",
        "turnstile",
        "cf-turnstile",
      ],
      [
        '<div class="frc-captcha" data-sitekey="FCMEXAMPLE"></div>',
        "",
        "friendly-captcha",
        "frc-captcha",
      ],
      [
        '<div id="w"></div>',
        "<script>onload=function(){grecaptcha.render('w',{sitekey:'6Lc'})}</script>",
        "recaptcha",
        "grecaptcha.render",
      ],
      [
        '<div id="w"></div>',
        "<script>hcaptcha.render('w', {sitekey: '1000'})</script>",
        "hcaptcha",
        "hcaptcha.render",
      ],
      ["<div class='h-captcha big' data-sitekey='1000'></div>", "", "hcaptcha", "h-captcha"],
    ];
    for (const [widget, script, provider, marker] of rows) {
      expect(detectChallenge(resp(200, page(widget, script)))).toEqual({
        verdict: "challenge",
        provider,
        marker: `whole page: ${marker} + "confirm you are human"`,
      });
    }
  });

  it("P21: the phrases that ask a visitor to prove they are a person", () => {
    const rows: [string, string][] = [
      ["Please verify that you're a human", "verify you are human"],
      ["Verifying you are human. This may take a few seconds.", "verify you are human"],
      ["Prove you’re not a robot", "prove you are human"],
      ["Are you human?", "are you a robot"],
      ["Complete the CAPTCHA to continue", "complete the captcha"],
      ["One more step: security check", "security check"],
    ];
    for (const [sentence, name] of rows) {
      const body = `<title>Example</title><p>${sentence}</p><div class="g-recaptcha" data-sitekey="6Lc"></div>`;
      expect(detectChallenge(resp(200, body))?.marker).toBe(`whole page: g-recaptcha + "${name}"`);
    }
  });

  it("P21: the other words CAPTCHA gates use: verification required, solve this CAPTCHA, I'm not a robot", () => {
    const rows: [string, string][] = [
      ["Verification required. To continue, please check the box below.", "verification required"],
      ["Please solve this CAPTCHA to continue to the Village of Example.", "complete the captcha"],
      ["Pass the challenge below to see this page.", "complete the captcha"],
      ["Tick “I’m not a robot” to continue.", "i'm not a robot"],
    ];
    for (const [sentence, name] of rows) {
      const body = `<title>Example</title><p>${sentence}</p><div class="g-recaptcha" data-sitekey="6Lc"></div>`;
      expect(detectChallenge(resp(200, body))?.marker).toBe(`whole page: g-recaptcha + "${name}"`);
    }
  });

  it("P21: the widget's own response field, hidden inputs, buttons and a checkbox are not fields", () => {
    const own = [
      '<textarea name="g-recaptcha-response" style="display:none"></textarea>',
      '<input type="hidden" name="cf-turnstile-response" value="">',
      '<input type="checkbox" name="remember"> <input type="image" src="/go.png"> <input type="reset">',
      '<textarea id="h-captcha-response-0x" name="h-captcha-response"></textarea>',
    ];
    for (const extra of own)
      expect(detectChallenge(resp(200, withExtra(extra)))).toEqual(RECAPTCHA);
  });
});

describe("P21: a CAPTCHA that is not the whole page is not a no", () => {
  const cases: [string, string][] = [
    ["an e-mail field (a newsletter signup)", withExtra('<input type="email" name="email">')],
    ["a text field without a type", withExtra('<input name="q">')],
    ["a password field (a login)", withExtra('<input type="password" name="pw">')],
    ["a textarea (a contact form)", withExtra('<textarea name="message"></textarea>')],
    ["a select", withExtra('<select name="dept"><option>Clerk</option></select>')],
    // These three ask no "please verify you are a human" (noAsk): a page with no widget that
    // is nothing but that ask is a no by itself (askOnly, tester-edges), so the widget rule is
    // looked at alone here. The gate with its ask and no widget: see "a page that is nothing
    // but the ask".
    [
      "only the script, no widget",
      noAsk(GATE.replace(/<div class="g-recaptcha"[^>]*><\/div>/, "")),
    ],
    [
      "reCAPTCHA v3's invisible execute() instead of a widget",
      noAsk(
        GATE.replace(
          /<div class="g-recaptcha"[^>]*><\/div>/,
          "<script>grecaptcha.ready(function(){grecaptcha.execute('6Lc',{action:'x'})})</script>",
        ),
      ),
    ],
    [
      "a widget class name only as part of another word",
      noAsk(GATE.replace('class="g-recaptcha"', 'class="g-recaptcha-badge-holder"')),
    ],
    [
      "no sentence asking to prove one is a person",
      GATE.replace("Verify you are human", "Agendas")
        .replace("Please verify you are a human", "Agendas")
        .replace("Complete the CAPTCHA below to continue", "Sign up for notices"),
    ],
    [
      `${CAPTCHA_PAGE_MAX_ITEMS + 1} links`,
      withExtra(`<p>${'<a href="/a">Agenda</a> '.repeat(CAPTCHA_PAGE_MAX_ITEMS + 1)}</p>`),
    ],
    [
      `${CAPTCHA_PAGE_MAX_ITEMS + 1} list items`,
      withExtra(`<ul>${"<li>Minutes</li>".repeat(CAPTCHA_PAGE_MAX_ITEMS + 1)}</ul>`),
    ],
    [
      `${CAPTCHA_PAGE_MAX_ITEMS + 1} table rows`,
      withExtra(
        `<table>${"<tr><td>Bid</td><td>Open</td></tr>".repeat(CAPTCHA_PAGE_MAX_ITEMS + 1)}</table>`,
      ),
    ],
  ];
  it.each(cases)("P21: the reCAPTCHA gate with %s is readable", (_what, body) => {
    expect(detectChallenge(resp(200, body))).toBeNull();
    expect(refusalFor(resp(200, body))).toBeNull();
  });

  it(`P21: up to ${CAPTCHA_PAGE_MAX_ITEMS} links is still a CAPTCHA page (privacy, help, home)`, () => {
    const links = '<a href="/">Home</a> <a href="/privacy">Privacy</a> <a href="/help">Help</a>';
    expect(detectChallenge(resp(200, withExtra(links)))).toEqual(RECAPTCHA);
  });

  it(`P21: the visible text bound: under ${CAPTCHA_PAGE_MAX_TEXT} characters only (scripts and styles do not count)`, () => {
    const base = visibleText(GATE).length;
    const pad = (n: number) => withExtra(`<p>${"x".repeat(n)}</p>`);
    // One space joins the padding to the text around it.
    expect(visibleText(pad(CAPTCHA_PAGE_MAX_TEXT - base - 2)).length).toBe(
      CAPTCHA_PAGE_MAX_TEXT - 1,
    );
    expect(detectChallenge(resp(200, pad(CAPTCHA_PAGE_MAX_TEXT - base - 2)))).toEqual(RECAPTCHA);
    expect(detectChallenge(resp(200, pad(CAPTCHA_PAGE_MAX_TEXT - base - 1)))).toBeNull();
    const scripted = withExtra(
      `<style>${"p{}".repeat(3000)}</style><script>${"var a=1;".repeat(3000)}</script>`,
    );
    expect(detectChallenge(resp(200, scripted))).toEqual(RECAPTCHA);
  });

  it(`P21: the size bound: a page over ${CAPTCHA_PAGE_MAX_BYTES / 1024} KB is never one, 20 MiB included`, () => {
    const over = GATE.replace("</body>", `<!--${"x".repeat(CAPTCHA_PAGE_MAX_BYTES)}--></body>`);
    expect(detectChallenge(resp(200, over))).toBeNull();
    const huge = new Uint8Array(20 * 1024 * 1024).fill(0x20);
    huge.set(new TextEncoder().encode(GATE));
    expect(detectChallenge({ ...resp(200, ""), body: huge })).toBeNull();
    expect(refusalFor({ ...resp(200, ""), body: huge })).toBeNull();
  });

  it("P21: only an HTML answer: a feed, JSON or text/plain with the same bytes is not one", () => {
    for (const type of ["application/rss+xml", "application/json", "text/plain", "text/xml"]) {
      expect(detectChallenge(resp(200, GATE, { "content-type": type }))).toBeNull();
    }
    expect(detectChallenge(resp(200, GATE, {}))).toEqual(RECAPTCHA);
    expect(detectChallenge(resp(200, GATE, { "content-type": "application/xhtml+xml" }))).toEqual(
      RECAPTCHA,
    );
  });
});

describe("P21: real government pages with CAPTCHA scripts stay readable", () => {
  const dir = new URL("../fixtures/platforms/", import.meta.url);
  const pages = [
    "iworq/FL_lakehamilton_iworq_permits_365d_page1.html",
    "ohio-county-html/OH_cuyahoga_board_of_elections_calendar.html",
    "ohio-county-html/OH_neorsd_document_library_agendas.html",
  ];
  it.each(pages)("P21: %s (as served) is not a no", (file) => {
    const body = new Uint8Array(readFileSync(new URL(file, dir)));
    expect(detectChallenge({ ...resp(200, ""), body })).toBeNull();
    expect(refusalFor({ ...resp(200, ""), body })).toBeNull();
  });

  it("P21: the iWorQ permits list minified under the size bound, even with a 'verify you are human' line by its g-recaptcha button, is not a no", () => {
    const raw = readFileSync(new URL(pages[0]!, dir), "utf8");
    const minified = raw.replace(/\s+/g, " ");
    expect(minified.length).toBeLessThan(CAPTCHA_PAGE_MAX_BYTES);
    expect(minified).toContain("g-recaptcha");
    expect(detectChallenge(resp(200, minified))).toBeNull();
    const asking = minified.replace(
      '<button type="submit" class="btn btn-primary g-recaptcha',
      '<p>Please verify you are human.</p><button type="submit" class="btn btn-primary g-recaptcha',
    );
    expect(asking).not.toBe(minified);
    expect(detectChallenge(resp(200, asking))).toBeNull();
  });
});

describe("P21: Cloudflare's interstitial at 200", () => {
  const cf = loadFixture("cloudflare-challenge-200");

  it("P21: the script pair is a challenge with the Ray ID, whatever the status", () => {
    for (const status of [200, 403, 503]) {
      expect(detectChallenge({ ...cf, status })).toEqual({
        verdict: "challenge",
        provider: "cloudflare",
        marker: "_cf_chl_opt + orchestrate/chl_page",
        reference: "8f0e1d2c3b4a5968-CLE",
      });
    }
  });

  it("P21: an article quoting the interstitial (entity-escaped) is not one, at 200 or 403", () => {
    const quoted = `<html><body><h1>Why did I see "Just a moment"?</h1><pre>${text(cf)
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")}</pre></body></html>`;
    expect(detectChallenge(resp(200, quoted))).toBeNull();
    expect(refusalFor(resp(403, quoted))).toEqual({
      verdict: "block",
      provider: "http",
      marker: "status 403",
    });
  });

  it("P21: the legacy challenge tokens still need a challenge status (a help page can show them)", () => {
    const legacy =
      '<form id="challenge-form" action="/?__cf_chl_jschl_tk__=abc" method="POST"><input type="hidden" name="jschl_vc" value="1"></form>';
    expect(detectChallenge(resp(200, legacy))).toBeNull();
    expect(detectChallenge(resp(503, legacy))).toMatchObject({ provider: "cloudflare" });
  });

  it("P21: only the orchestrate path, or only _cf_chl_opt, at 200 is nothing", () => {
    const script = (s: string) => `<html><body><p>Agendas</p><script>${s}</script></body></html>`;
    expect(detectChallenge(resp(200, script("window._cf_chl_opt={cvId:'3'};")))).toBeNull();
    expect(
      detectChallenge(
        resp(200, script("var u='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1';")),
      ),
    ).toBeNull();
  });
});

describe("P21: a widget the tester found missing: an image CAPTCHA, a reCAPTCHA iframe (tester-edges)", () => {
  const IMAGE = `<html><head><title>Security Check</title></head><body>
<h1>Please prove you are a human</h1><p>Type the characters you see in the picture below.</p>
<form method="post" action="/captcha/verify"><img src="/captcha/image.jpg?id=8841" alt="CAPTCHA image">
<input type="text" name="captcha_code"><input type="hidden" name="return" value="/feed.xml">
<input type="submit" value="Continue"></form></body></html>`;
  const IFRAME = `<html><head><title>Just a moment</title></head><body><p>Please verify you are a human to continue.</p>
<iframe src="https://www.google.com/recaptcha/api2/anchor?k=6Lc_aX0&amp;hl=en" width="304" height="78"></iframe></body></html>`;

  it.each([200, 429, 503])(
    "P21: an image CAPTCHA and its one answer field, at %i, is a challenge",
    (status) => {
      expect(detectChallenge(resp(status, IMAGE))).toEqual({
        verdict: "challenge",
        provider: "image-captcha",
        marker: 'whole page: captcha image + "prove you are human"',
      });
    },
  );

  it.each(["number", "tel", "TEXT"])(
    'P21: an image CAPTCHA of digits, its answer field type="%s", is a challenge',
    (type) => {
      const digits = IMAGE.replace(
        'type="text" name="captcha_code"',
        `type="${type}" name="captcha_code"`,
      );
      expect(detectChallenge(resp(200, digits))).toEqual({
        verdict: "challenge",
        provider: "image-captcha",
        marker: 'whole page: captcha image + "prove you are human"',
      });
    },
  );

  it("P21: a reCAPTCHA, hCaptcha or Turnstile iframe on a page that is only the ask is a challenge", () => {
    expect(detectChallenge(resp(200, IFRAME))?.provider).toBe("recaptcha");
    const h = IFRAME.replace(
      "https://www.google.com/recaptcha/api2/anchor",
      "https://newassets.hcaptcha.com/captcha/v1/x/static/hcaptcha.html",
    );
    expect(detectChallenge(resp(200, h))?.provider).toBe("hcaptcha");
    const t = IFRAME.replace(
      "https://www.google.com/recaptcha/api2/anchor",
      "https://challenges.cloudflare.com/cdn-cgi/challenge-platform/turnstile/if/ov2",
    );
    expect(detectChallenge(resp(200, t))?.provider).toBe("turnstile");
  });

  const notNo: [string, string][] = [
    [
      "a contact form with an image CAPTCHA (name, e-mail, message)",
      IMAGE.replace(
        '<input type="text" name="captcha_code">',
        '<input name="name"><input type="email" name="email"><textarea name="message"></textarea><input type="text" name="captcha_code">',
      ),
    ],
    [
      "an image CAPTCHA with a second text field (a site search)",
      IMAGE.replace('<input type="submit"', '<input type="text" name="q"><input type="submit"'),
    ],
    [
      "a contact form with a reCAPTCHA iframe",
      IFRAME.replace(
        "<iframe",
        '<form><input name="name"><textarea name="message"></textarea></form><iframe',
      ),
    ],
  ];
  it.each(notNo)("P21: %s is not a no", (_what, body) => {
    expect(detectChallenge(resp(200, body))).toBeNull();
    expect(refusalFor(resp(200, body))).toBeNull();
  });

  it("P21: a picture named captcha with no answer field, or another site's iframe (a map), is no widget: such a page with the bare ask is a no by its ask alone, with no page around it none", () => {
    const photo = IMAGE.replace('<input type="text" name="captcha_code">', "");
    const map = IFRAME.replace(
      "https://www.google.com/recaptcha/api2/anchor",
      "https://www.google.com/maps/embed",
    );
    for (const page of [photo, map]) {
      expect(detectChallenge(resp(200, page))?.provider).toBe("generic");
      expect(
        detectChallenge(resp(200, noAsk(page).replace(/please (prove|verify)/i, "We $1"))),
      ).toBeNull();
    }
  });
});

describe("P21: a page that is nothing but the ask to prove one is a person (tester-edges)", () => {
  const PROVE = `<html><head><title>One moment</title></head><body>
<p>Please prove you are human to continue to this site.</p><button onclick="location.reload()">I am human</button></body></html>`;

  it.each([200, 202])(
    "P21: 'Please prove you are human' and a button, at %i, is a challenge",
    (status) => {
      expect(detectChallenge(resp(status, PROVE))).toEqual({
        verdict: "challenge",
        provider: "generic",
        marker: 'whole page: "please prove you are human"',
      });
    },
  );

  it.each([429, 503])("P21: the same page at %i is a (suspected) no by Tier 3 first", (status) => {
    expect(refusalFor(resp(status, PROVE))).toMatchObject({
      verdict: "suspected",
      marker: `status ${status} + "prove you are human"`,
    });
  });

  it("P21: the reCAPTCHA gate with only its script and its ask, no widget, is a challenge by its ask", () => {
    const page = GATE.replace(/<div class="g-recaptcha"[^>]*><\/div>/, "");
    expect(detectChallenge(resp(200, page))).toMatchObject({
      verdict: "challenge",
      provider: "generic",
    });
  });

  const notNo: [string, string][] = [
    [
      "a short article that asks 'are you human?' in running text",
      "<html><title>Are you human? Bots on the web</title><body><p>Are you human? A panel on automated traffic meets Tuesday.</p></body></html>",
    ],
    [
      "a help page that says the site may ask you to verify you are human",
      "<html><title>Help</title><body><p>Sometimes we ask you to verify you are human; this helps keep spam out.</p></body></html>",
    ],
    [
      "the ask with a site search field",
      PROVE.replace(
        "<button",
        '<form action="/search"><input type="search" name="q"></form><button',
      ),
    ],
    [
      "the ask on a page with a list of records",
      PROVE.replace("</body>", `<ul>${'<li><a href="/m">Minutes</a></li>'.repeat(5)}</ul></body>`),
    ],
    [
      "the ask in a page longer than a bare ask (a news item that mentions CAPTCHA)",
      PROVE.replace(
        "</body>",
        `<p>${"The council discussed adding a CAPTCHA to the permit portal, after spam submissions rose this spring. ".repeat(4)}</p></body>`,
      ),
    ],
  ];
  it.each(notNo)("P21: %s is not a no", (_what, body) => {
    expect(detectChallenge(resp(200, body))).toBeNull();
    expect(refusalFor(resp(200, body))).toBeNull();
  });

  it("P21: the same bytes as a feed or text/plain are not one", () => {
    for (const type of ["application/rss+xml", "text/plain", "application/json"])
      expect(detectChallenge(resp(200, PROVE, { "content-type": type }))).toBeNull();
  });
});
