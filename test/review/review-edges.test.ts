import { describe, expect, it } from "vitest";
import { isCredentialParam, requestCredentialProblem } from "../../src/policy/credentials.js";
import { detectChallenge } from "../../src/policy/refusal.js";

/**
 * Adversarial review (review-edges) of the tester-edges fixes: P21's new "prove you are
 * human" rules (image CAPTCHA, widget iframes, a widget-less page that is only the ask) and
 * P3's one credential-name rule, held to real government page shapes.
 */
const page = (body: string, status = 200) =>
  detectChallenge({
    status,
    headers: { "content-type": "text/html; charset=utf-8" },
    body,
    url: "https://village.example.gov/agendas",
  });

const NAV = `<nav><a href="/">Home</a> <a href="/agendas">Agendas</a> <a href="/minutes">Minutes</a> <a href="/bids">Bids</a> <a href="/contact">Contact</a></nav>`;

describe("P21: real pages that mention a CAPTCHA stay readable", () => {
  it("P21: an agenda list with a 'report a problem' form that has an image CAPTCHA is readable", () => {
    const html = `<html><head><title>Agendas</title></head><body>${NAV}
<ul><li><a href="/a/1.pdf">Council, Nov 3</a></li><li><a href="/a/2.pdf">Council, Oct 20</a></li></ul>
<form action="/report" method="post"><h2>Report a problem with this page</h2>
<textarea name="problem"></textarea>
<p>Please prove you are human: type the characters below.</p>
<img src="/captcha.ashx?id=3" alt="captcha"><input type="text" name="captcha_code">
<input type="submit" value="Send"></form></body></html>`;
    expect(page(html)).toBeNull();
  });

  it("P21: an ASP.NET search page with a captcha image but no captcha field (a search box only) is readable", () => {
    const html = `<html><head><title>Search Bids</title></head><body>
<form method="post" action="./Bids.aspx" id="aspnetForm">
<input type="hidden" name="__VIEWSTATE" value="abc"><input type="hidden" name="__EVENTVALIDATION" value="def">
<p>Please verify you are human.</p>
<img id="ctl00_Main_imgCaptcha" src="CaptchaImage.axd?guid=1">
<input type="text" name="ctl00$Main$txtKeyword">
<input type="submit" name="ctl00$Main$btnSearch" value="Search"></form></body></html>`;
    expect(page(html)).toBeNull();
  });

  it("P21: a short page whose only ask is a hidden validation message (display:none, hidden) is no refusal", () => {
    for (const hidden of [
      `<span id="ctl00_Main_valCaptcha" style="display:none;">Please verify you are human.</span>`,
      `<div class="captcha-error" hidden>Please confirm you are not a robot.</div>`,
    ]) {
      const html = `<html><head><title>Agenda - Regular Meeting, November 3, 2026</title></head><body>
<h1>Regular Meeting, November 3, 2026</h1>
<iframe src="/DocumentViewer/agenda-2026-11-03.pdf" width="100%" height="900"></iframe>
${hidden}</body></html>`;
      expect(page(html), hidden).toBeNull();
    }
  });

  it("P21: a page that shows the ask is still a no, whatever it hides beside it", () => {
    const html = `<html><head><title>One moment</title></head><body>
<p>Please verify you are human.</p>
<div hidden><p>Thanks, redirecting</p></div>
<span style="display:none">Error</span></body></html>`;
    expect(page(html)).toMatchObject({ verdict: "challenge" });
    // A hidden element left open (or nested, closed early) hides nothing after it.
    expect(
      page(`<html><body><div hidden>x<div>y</div> Please verify you are human.</body></html>`),
    ).toMatchObject({ verdict: "challenge" });
  });

  it("P21: 'verify you are human' inside a script on a short page is no refusal", () => {
    const html = `<html><head><title>Minutes</title><script>var msg = "Please verify you are human.";</script></head><body>
<h1>Minutes</h1><a href="/m/1.pdf">Minutes, Nov 3</a></body></html>`;
    expect(page(html)).toBeNull();
  });
});

describe("P3: public parameter names of government vendors stay public", () => {
  it("P3: document, agenda, meeting, search and pager keys are no credentials", () => {
    for (const name of [
      "DocumentKey",
      "fileKey",
      "AgendaKey",
      "meetingKey",
      "MeetingKey",
      "keyword",
      "SearchKey",
      "pageKey",
      "nextPageToken",
      "AccountKey",
      "ctl00$Main$txtKeyword",
      "ctl00$ContentPlaceHolder1$hdnSearchKey",
    ])
      expect(isCredentialParam(name), name).toBe(false);
  });

  it("P3: a key sent as a PHP list item (api_key[0]=…, auth[token][0]=…) is still a key", () => {
    for (const name of ["api_key[0]", "auth[token][0]", "access_token[1]"])
      expect(isCredentialParam(name), name).toBe(true);
    expect(
      requestCredentialProblem(new URL("https://api.example.gov/v1/meetings?api_key[0]=s3cr3t")),
    ).toMatch(/api_key\[0\]/);
  });
});
