import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBody as decode } from "../../../src/policy/body-text.js";
import { fixture, preset, run } from "./helpers.js";

const GET_FILE = "legistar-html/TN_nashville_Calendar.aspx_GET_thisyear.html";
const POST_FILE = "legistar-html/TN_nashville_Calendar.aspx_POST_year2023.html";
const NASHVILLE = "https://nashville.legistar.com/Calendar.aspx";

function hiddenValue(html: string, name: string): string {
  const m = new RegExp(`name="${name}" id="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no ${name}`);
  return m[1]!;
}

describe("legistar-html preset", () => {
  it("P6: Columbus Calendar.aspx gives its 4 meetings with relative View.ashx links made absolute", () => {
    const x = run(
      "legistar-html",
      "legistar-html/OH_columbus_Calendar.aspx.html",
      "https://columbus.legistar.com/Calendar.aspx",
    );
    expect(x.meetings).toHaveLength(4);
    expect(x.records[0]).toEqual({
      id: "1390531#agenda",
      title: "Zoning Committee",
      date: "2026-02-23T18:30:00-05:00",
      url: "https://columbus.legistar.com/View.ashx?M=A&ID=1390531&GUID=99C8E536-23D1-4912-AEC7-17CB05C140AE",
      kind: "agendas",
    });
    expect(x.records.find((r) => r.id.startsWith("1390932"))).toMatchObject({
      title: "Columbus City Council",
      date: "2026-02-23T17:00:00-05:00",
    });
    expect(x.records.at(-1)).toMatchObject({
      title: "Columbus City Council",
      date: "2026-02-09T17:00:00-05:00",
    });
    // "Not available" minutes have no link and are not records.
    expect(
      x.records.filter((r) => r.kind === "minutes").every((r) => r.url?.includes("M=M&")),
    ).toBe(true);
  });

  it("Nashville's This Year grid: 64 meetings, 57 with an agenda, grouped by body not date", () => {
    const x = run("legistar-html", GET_FILE, NASHVILLE);
    expect(x.meetings).toHaveLength(64);
    expect(x.records.filter((r) => r.kind === "agendas")).toHaveLength(57);
    expect(x.records[0]).toMatchObject({
      title: "Metropolitan Council",
      date: "2022-10-04T18:30:00-05:00",
    });
    expect(x.records.at(-1)).toMatchObject({ title: "Metropolitan Council" });
    expect(x.records.at(-1)!.date!.slice(0, 10)).toBe("2022-01-04");
  });

  it("the 2023 postback answer: 1 meeting, no agenda link, so one meetings record", () => {
    const x = run("legistar-html", POST_FILE, NASHVILLE);
    expect(x.records).toEqual([
      {
        id: "812493",
        title: "Metropolitan Council",
        date: "2023-08-15T18:30:00-05:00",
        kind: "meetings",
      },
    ]);
  });

  it("P7: from 2023 the next page is the 2022 postback; from Columbus' This Month, the whole of 2026", () => {
    const p = preset("legistar-html");
    const y2023 = run("legistar-html", POST_FILE, NASHVILLE);
    const next = p.nextRequest!({ method: "POST", url: NASHVILLE }, y2023.body, y2023)!;
    const form = new URLSearchParams(next.body);
    expect(form.get("ctl00_ContentPlaceHolder1_lstYears_ClientState")).toBe('{"value":"2022"}');
    const col = run(
      "legistar-html",
      "legistar-html/OH_columbus_Calendar.aspx.html",
      "https://columbus.legistar.com/Calendar.aspx",
    );
    const n2 = p.nextRequest!(
      { method: "GET", url: "https://columbus.legistar.com/Calendar.aspx" },
      col.body,
      col,
    )!;
    expect(new URLSearchParams(n2.body).get("ctl00_ContentPlaceHolder1_lstYears_ClientState")).toBe(
      '{"value":"2026"}',
    );
  });

  it("P5, P7: a backfill left at a year on an earlier night chooses that year again on tonight's calendar, with tonight's page state", () => {
    const p = preset("legistar-html");
    const tonight = run("legistar-html", GET_FILE, NASHVILLE);
    // What an earlier night kept: the 2019 postback, with that night's state.
    const kept = new URLSearchParams({
      __VIEWSTATE: "an earlier night's state",
      __EVENTVALIDATION: "an earlier night's validation",
      __EVENTTARGET: "ctl00$ContentPlaceHolder1$lstYears",
      ctl00$ContentPlaceHolder1$lstYears: "2019",
    }).toString();
    const cursor = { method: "POST" as const, url: NASHVILLE, body: kept };
    const again = p.resumeRequest!(
      cursor,
      { method: "GET", url: NASHVILLE },
      tonight.body,
      tonight,
    )!;
    const form = new URLSearchParams(again.body);
    const html = decode(fixture(GET_FILE));
    expect(again).toMatchObject({ method: "POST", url: NASHVILLE });
    expect(form.get("__VIEWSTATE")).toBe(hiddenValue(html, "__VIEWSTATE"));
    expect(form.get("__EVENTVALIDATION")).toBe(hiddenValue(html, "__EVENTVALIDATION"));
    expect(form.get("ctl00_ContentPlaceHolder1_lstYears_ClientState")).toBe('{"value":"2019"}');
    // A year tonight's list does not offer: the cursor is asked as it was kept.
    const gone = kept.replace("lstYears=2019", "lstYears=1999");
    expect(
      p.resumeRequest!({ ...cursor, body: gone }, cursor, tonight.body, tonight),
    ).toBeUndefined();
  });

  describe("P5/P7: the year switch is an ASP.NET postback, watched by a loopback server", () => {
    const seen: { method: string; url: string; type: string; body: string }[] = [];
    let server: Server;
    let base = "";
    beforeAll(async () => {
      server = createServer((req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => {
          body += c.toString("latin1");
        });
        req.on("end", () => {
          seen.push({
            method: req.method ?? "",
            url: req.url ?? "",
            type: req.headers["content-type"] ?? "",
            body,
          });
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          res.end(fixture(req.method === "POST" ? POST_FILE : GET_FILE));
        });
      });
      await new Promise<void>((ok) => server.listen(0, "127.0.0.2", ok));
      base = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

    it("posts back every hidden field as served, with __EVENTTARGET = the year combo and the year before", async () => {
      const p = preset("legistar-html");
      const first = p.firstRequest(`${base}/Calendar.aspx`, 0);
      const r1 = await fetch(first.url, { signal: AbortSignal.timeout(5000) });
      const page = new Uint8Array(await r1.arrayBuffer());
      const x1 = p.extract(page, first.url);
      expect(x1.records.length).toBeGreaterThan(0);
      const next = p.nextRequest!(first, page, x1)!;
      expect(next).toMatchObject({
        method: "POST",
        url: `${base}/Calendar.aspx`,
        contentType: "application/x-www-form-urlencoded",
      });
      const r2 = await fetch(next.url, {
        method: next.method,
        body: next.body!,
        headers: { "content-type": next.contentType! },
        signal: AbortSignal.timeout(5000),
      });
      const x2 = p.extract(new Uint8Array(await r2.arrayBuffer()), next.url);
      expect(seen.map((s) => s.method)).toEqual(["GET", "POST"]);
      const form = new URLSearchParams(seen[1]!.body);
      const html = decode(fixture(GET_FILE));
      expect(form.get("__VIEWSTATE")).toBe(hiddenValue(html, "__VIEWSTATE"));
      expect(form.get("__VIEWSTATE")!.length).toBeGreaterThan(200_000);
      expect(form.get("__EVENTVALIDATION")).toBe(hiddenValue(html, "__EVENTVALIDATION"));
      expect(form.get("__VIEWSTATEGENERATOR")).toBe("B66867E1");
      expect(form.get("__EVENTTARGET")).toBe("ctl00$ContentPlaceHolder1$lstYears");
      // This Year shows 2022, so the older page is 2021.
      expect(form.get("ctl00_ContentPlaceHolder1_lstYears_ClientState")).toBe('{"value":"2021"}');
      expect(form.get("ctl00$ContentPlaceHolder1$lstBodies")).toBe("All Legislative Bodies");
      expect(x2.records).toHaveLength(1);
    });
  });
});
