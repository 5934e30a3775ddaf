import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { FormSpec } from "../../../src/sources/catalog/schema.js";
import {
  buildFormRequest,
  NotSubmitted,
  nextPagerRequest,
} from "../../../src/sources/extract/form.js";
import { fillDateTemplates } from "../../../src/sources/extract/form-dates.js";

const accela = new Uint8Array(
  readFileSync(
    new URL(
      "../../fixtures/platforms/accela/FL_lakealfred_Accela_CapHome_Building.html",
      import.meta.url,
    ),
  ),
);
const PAGE = "https://aca-prod.accela.com/COLA/Cap/CapHome.aspx?module=Building";
const enc = (s: string) => new TextEncoder().encode(s);
// 2026-11-05 08:00 UTC = 03:00 EST: still Nov 5 in New York.
const NOW = Date.UTC(2026, 10, 5, 8, 0, 0);
const G = "ctl00$PlaceHolderMain$generalSearchForm$";

describe("P5: public search forms", () => {
  it("P5: replays the Accela ASP.NET form with its hidden state and the spec's dates", () => {
    const spec: FormSpec = {
      selector: "form#aspnetForm",
      fields: { [`${G}txtGSStartDate`]: "{today-30d}", [`${G}txtGSEndDate`]: "{today}" },
      eventTarget: "ctl00$PlaceHolderMain$btnNewSearch",
    };
    const req = buildFormRequest(accela, PAGE, spec, NOW);
    expect(req.method).toBe("POST");
    expect(req.url).toBe(
      "https://aca-prod.accela.com/COLA/Cap/CapHome.aspx?module=Building&TabName=Building",
    );
    expect(req.contentType).toBe("application/x-www-form-urlencoded");
    const body = new URLSearchParams(req.body);
    expect(body.get("__VIEWSTATE")?.length).toBeGreaterThan(50_000);
    expect(body.get("__VIEWSTATE")?.startsWith("o12qxDA0qoIQBulVnJR3ER+vmux18sC2")).toBe(true);
    expect(body.get("__VIEWSTATEGENERATOR")).toBe("EEF6E5C1");
    expect(body.get("ACA_CS_FIELD")).toBe("83107b6715404dbda67fca5dece69dd2");
    expect(body.get("__EVENTTARGET")).toBe("ctl00$PlaceHolderMain$btnNewSearch");
    expect(body.get("__EVENTARGUMENT")).toBe("");
    // The form's own 04/19/2023 – 04/18/2026 are replaced, in place, by the spec's window.
    expect(body.get(`${G}txtGSStartDate`)).toBe("10/06/2026");
    expect(body.get(`${G}txtGSEndDate`)).toBe("11/05/2026");
    expect(body.getAll(`${G}txtGSStartDate`)).toHaveLength(1);
    // A select with nothing selected sends its first option, as a browser does.
    expect(body.has(`${G}ddlGSPermitType`)).toBe(true);
    // A hidden input is sent as a browser sends it, even one styled as a button.
    expect(body.get("Submit")).toBe("Submit");
  });

  it("P5: a GET form puts its fields in the query, replacing the action's own query", () => {
    const page = `<form action="/search?old=1" method="get"><input type="hidden" name="t" value="bids">
<input name="from"><input type="checkbox" name="open" value="y" checked><input type="checkbox" name="closed" value="y">
<select name="dept"><option value="">All</option><option value="7" selected>Roads</option></select>
<textarea name="q">salt</textarea><input type="submit" name="go" value="Search"><input name="x" disabled value="1"></form>`;
    const req = buildFormRequest(
      enc(page),
      "https://county.example.gov/bids",
      { fields: { from: "{today-1m}" }, submit: "go", dateFormat: "YYYY-MM-DD" },
      NOW,
    );
    expect(req).toEqual({
      method: "GET",
      url: "https://county.example.gov/search?t=bids&from=2026-10-05&open=y&dept=7&q=salt&go=Search",
    });
  });

  it("P5: turns ASP.NET GridView pages with __doPostBack('…$gvResults','Page$N')", () => {
    // Written for this test in the shape ASP.NET WebForms renders a GridView pager.
    const results = `<form method="post" action="./Results.aspx?x=1" id="aspnetForm">
<input type="hidden" name="__EVENTTARGET" value=""><input type="hidden" name="__EVENTARGUMENT" value="">
<input type="hidden" name="__VIEWSTATE" value="VS-PAGE-1"><input type="hidden" name="__EVENTVALIDATION" value="EV-1">
<input name="ctl00$Main$txtFrom" value="10/06/2026"><input type="submit" name="ctl00$Main$btnSearch" value="Search">
<table id="ctl00_Main_gvResults"><tr><td>row</td></tr><tr class="pager"><td><span>1</span>
<a href="javascript:__doPostBack('ctl00$Main$gvResults','Page$2')">2</a>
<a href="javascript:__doPostBack(&#39;ctl00$Main$gvResults&#39;,&#39;Page$3&#39;)">3</a>
<a href="javascript:__doPostBack('ctl00$Main$other','Page$2')">x</a></td></tr></table></form>`;
    const spec: FormSpec = { fields: {}, pager: "ctl00$Main$gvResults" };
    const url = "https://permits.example.gov/Results.aspx?x=1";
    const p2 = nextPagerRequest(enc(results), url, spec, 1);
    expect(p2?.method).toBe("POST");
    expect(p2?.url).toBe(url);
    const body = new URLSearchParams(p2?.body);
    expect(body.get("__EVENTTARGET")).toBe("ctl00$Main$gvResults");
    expect(body.get("__EVENTARGUMENT")).toBe("Page$2");
    expect(body.get("__VIEWSTATE")).toBe("VS-PAGE-1");
    expect(body.get("__EVENTVALIDATION")).toBe("EV-1");
    expect(body.get("ctl00$Main$txtFrom")).toBe("10/06/2026");
    expect(body.has("ctl00$Main$btnSearch")).toBe(false); // a pager click presses no button
    expect(
      new URLSearchParams(nextPagerRequest(enc(results), url, spec, 2)?.body).get(
        "__EVENTARGUMENT",
      ),
    ).toBe("Page$3");
    expect(nextPagerRequest(enc(results), url, spec, 3)).toBeUndefined(); // the last page
  });

  it("date templates count days in New York, across month ends and DST", () => {
    expect(fillDateTemplates("{today}", Date.UTC(2026, 2, 1, 4, 59))).toBe("02/28/2026"); // 23:59 EST
    expect(fillDateTemplates("{today}", Date.UTC(2026, 2, 1, 5, 0))).toBe("03/01/2026");
    expect(fillDateTemplates("{today}", Date.UTC(2026, 6, 1, 3, 59))).toBe("06/30/2026"); // 23:59 EDT
    expect(fillDateTemplates("{today-1m}", Date.UTC(2026, 2, 31, 12))).toBe("02/28/2026");
    expect(fillDateTemplates("{today+2w} to {today-1y}", NOW, { format: "M/D/YYYY" })).toBe(
      "11/19/2026 to 11/5/2025",
    );
    expect(
      fillDateTemplates("{today}", NOW, { zone: "Pacific/Auckland", format: "YYYY-MM-DD" }),
    ).toBe("2026-11-05");
  });
});

describe("P5: where a browser sends the form (HTML §4.10.21.3)", () => {
  const page = "https://city.example.gov/app/search.aspx";
  const build = (html: string, spec: FormSpec = { fields: {} }) =>
    buildFormRequest(enc(html), page, spec, NOW, "text/html; charset=utf-8");
  const formWith = (action: string, head = "") =>
    `<html><head>${head}</head><body><form method="post" action="${action}"><input name="q" value="x"><input type="submit" name="go" value="Search"></form></body></html>`;

  it("P5: an action that is no web address is not submitted, however it is spelled (a tab or newline inside, spaces or controls around, any case, an entity)", () => {
    for (const action of [
      "javascript:void(0)",
      "java&#9;script:void(0)",
      "java&#10;script:void(0)",
      "java\nscript:void(0)",
      "JAVA\tSCRIPT:void(0)",
      "  javascript:x  ",
      "&#1;javascript:x",
      "&#106;avascript:x",
      "mailto:a@b.gov",
      "data:,x",
    ])
      expect(() => build(formWith(action)), action).toThrow(
        /no web address \(a browser sends no search there\): nothing was submitted/,
      );
  });

  it("P5: a relative action goes where a browser sends it: against <base href>, a newline inside dropped, none or empty to the page itself", () => {
    const base = '<base href="https://city.example.gov/other/">';
    expect(build(formWith("results.aspx", base)).url).toBe(
      "https://city.example.gov/other/results.aspx",
    );
    expect(build(formWith("res\nults.aspx")).url).toBe("https://city.example.gov/app/results.aspx");
    expect(build(formWith("", base)).url).toBe(page);
    expect(build(formWith("   ")).url).toBe(page);
    expect(build(formWith("#top")).url).toBe(page);
  });

  it("P5: the submit button's formaction wins over the form's action", () => {
    const html = `<form method="post" action="javascript:void(0)"><input name="q"><input type="submit" name="go" value="Search" formaction="/real/results.aspx"></form>`;
    expect(build(html, { fields: {}, submit: "go" }).url).toBe(
      "https://city.example.gov/real/results.aspx",
    );
  });
});

describe("P3: forms that would sign in or send a credential are never submitted", () => {
  const page = "https://records.example.gov/search";
  const form = (controls: string) =>
    enc(
      `<form method="post" action="/search"><input type="hidden" name="__VIEWSTATE" value="abc">${controls}<input type="text" name="from"></form>`,
    );
  it.each([
    [
      '<input type="password" name="pw" value="hunter2">',
      'would send a password (its password input "pw" holds one)',
    ],
    ['<input type="PASSWORD" name="login$pass" value="hunter2">', "would send a password"],
    ['<input type="hidden" name="api_key" value="SECRETKEY123">', 'credential field "api_key"'],
    [
      '<input type="hidden" name="Access-Token" value="SECRETKEY123">',
      'credential field "Access-Token"',
    ],
  ])("P3: %s: refused, saying why, never its value", (controls, why) => {
    const build = () => buildFormRequest(form(controls), page, { fields: {} }, NOW);
    expect(build).toThrow(NotSubmitted);
    expect(build).toThrow(why);
    expect(build).not.toThrow("hunter2");
    expect(build).not.toThrow("SECRETKEY123");
  });

  it("P3: a credential field the recipe fills in is refused too; an empty one sends nothing and is sent", () => {
    expect(() => buildFormRequest(form(""), page, { fields: { key: "bids" } }, NOW)).toThrow(
      'credential field "key"',
    );
    const ok = buildFormRequest(
      form('<input type="hidden" name="token" value="">'),
      page,
      { fields: {} },
      NOW,
    );
    expect(ok.body).toBe("__VIEWSTATE=abc&token=&from=");
  });

  it("P3, P5: a result page whose form would send a password turns no page", () => {
    const results = `<form method="post" action="/search"><input type="hidden" name="__VIEWSTATE" value="p1"><input type="password" name="pw" value="hunter2"><a href="javascript:__doPostBack('gv','Page$2')">2</a></form>`;
    expect(nextPagerRequest(enc(results), page, { fields: {} }, 1)).toBeUndefined();
    const open = results.replace('<input type="password" name="pw" value="hunter2">', "");
    expect(nextPagerRequest(enc(open), page, { fields: {} }, 1)?.method).toBe("POST");
  });
});

describe("P5, P3: public search forms a browser submits without any credential", () => {
  const page = "https://records.example.gov/search";

  it.each([
    ["_token", "Laravel's @csrf field (iWorQ)"],
    ["token", "a bare anti-forgery field"],
  ])(
    "P5, P3: a public POST search form whose hidden anti-forgery %j (%s) is submitted, the token with it (an anti-forgery token is handed to every visitor: no credential)",
    (name) => {
      const html = `<form method="post" action="/search"><input type="hidden" name="${name}" value="FENYskFICZBh4lhf5Dtg0vBpUDAvlIV3Fr17PjmD"><input type="text" name="q"></form>`;
      const req = buildFormRequest(enc(html), page, { fields: { q: "minutes" } }, NOW);
      expect(req).toMatchObject({
        method: "POST",
        body: `${name}=FENYskFICZBh4lhf5Dtg0vBpUDAvlIV3Fr17PjmD&q=minutes`,
      });
    },
  );

  it("P3: the same token in a GET form would go out in the URL (logged, archived): not submitted", () => {
    const html = `<form method="get" action="/search"><input type="hidden" name="_token" value="FENYsk"><input type="text" name="q"></form>`;
    expect(() => buildFormRequest(enc(html), page, { fields: {} }, NOW)).toThrow(NotSubmitted);
  });

  // A whole-page ASP.NET form (<form id="aspnetForm"> around the page) whose header holds a
  // login box: a visitor who searches clicks the search button and the browser sends every
  // control of the form, the empty user name and password boxes too, and the search button
  // alone (HTML §4.10.21.4): no password goes out and no one signs in.
  const wholePage = (pw: string) =>
    enc(
      `<form method="post" action="./Search.aspx" id="aspnetForm"><input type="hidden" name="__VIEWSTATE" value="vs"><input type="hidden" name="__EVENTVALIDATION" value="ev"><div class="header"><input type="text" name="ctl00$Login1$UserName" value=""><input type="password" name="ctl00$Login1$Password"${pw}><input type="submit" name="ctl00$Login1$LoginButton" value="Log In"></div><input type="text" name="ctl00$Main$txtFrom"><input type="submit" name="ctl00$Main$btnSearch" value="Search"><a href="javascript:__doPostBack('ctl00$Main$gv','Page$2')">2</a></form>`,
    );
  const spec: FormSpec = {
    fields: { ctl00$Main$txtFrom: "11/01/2026" },
    submit: "ctl00$Main$btnSearch",
  };

  it("P5, P3: a whole-page ASP.NET form whose header holds an empty login box is searched by its search button, the password box sent empty as a browser sends it", () => {
    const req = buildFormRequest(
      wholePage(""),
      "https://records.example.gov/Search.aspx",
      spec,
      NOW,
    );
    expect(req.method).toBe("POST");
    const sent = new URLSearchParams(req.body);
    expect(sent.get("ctl00$Login1$Password")).toBe("");
    expect(sent.get("ctl00$Main$btnSearch")).toBe("Search");
    expect(sent.has("ctl00$Login1$LoginButton")).toBe(false);
    expect(
      nextPagerRequest(wholePage(""), "https://records.example.gov/Search.aspx", spec, 1)?.method,
    ).toBe("POST");
  });

  it("P3: the same form whose password box holds a password is never submitted, nor its pager turned", () => {
    const build = () =>
      buildFormRequest(
        wholePage(' value="hunter2"'),
        "https://records.example.gov/Search.aspx",
        spec,
        NOW,
      );
    expect(build).toThrow(NotSubmitted);
    expect(build).toThrow('password input "ctl00$Login1$Password"');
    expect(build).not.toThrow("hunter2");
    expect(
      nextPagerRequest(
        wholePage(' value="hunter2"'),
        "https://records.example.gov/Search.aspx",
        spec,
        1,
      ),
    ).toBeUndefined();
  });
});
