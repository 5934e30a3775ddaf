/**
 * One body decoder and one JSON reader for every way in: a platform preset reads a county's
 * windows-1252 page as the generic reader does, and an answer that is not JSON is said in the
 * same words whichever reader met it.
 */
import { describe, expect, it } from "vitest";
import { decodeBody } from "../../../src/policy/body-text.js";
import { extractWay } from "../../../src/sources/extract/index.js";
import { readJson } from "../../../src/sources/extract/json.js";
import { getPlatform } from "../../../src/sources/platforms/index.js";
import { fixture } from "../platforms/helpers.js";

const COLUMBUS = "https://columbus.legistar.com/Calendar.aspx";

/** Bytes of a Latin string as windows-1252 (é is the single byte 0xE9). */
function cp1252(s: string): Uint8Array {
  return new Uint8Array([...s].map((c) => c.charCodeAt(0)));
}

/** The Columbus calendar (plain ASCII, no charset named) with "Café" written in 0xE9. */
function columbusWithCafe(): Uint8Array {
  const text = new TextDecoder("latin1").decode(
    fixture(["legistar-html", "OH_columbus_Calendar.aspx.html"].join("/")),
  );
  return cp1252(text.replaceAll("Zoning Committee", "Café Zoning Committee"));
}

describe("decodeBody: the one decoder", () => {
  it("BOM first, then the Content-Type charset, then <meta charset> or http-equiv", () => {
    const utf16 = new Uint8Array([0xff, 0xfe, 0x43, 0x00, 0xe9, 0x00]);
    expect(decodeBody(utf16, "text/html; charset=windows-1252")).toBe("Cé");
    expect(decodeBody(cp1252("Caf\u00e9"), "text/html; charset=windows-1252")).toBe("Café");
    expect(decodeBody(cp1252('<meta charset="windows-1252"><p>Caf\u00e9'))).toContain("Café");
    expect(
      decodeBody(
        cp1252(
          '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>Caf\u00e9',
        ),
      ),
    ).toContain("Café");
    // The header wins over the page's own claim, as in a browser.
    const koi8 = new Uint8Array([0xc3, 0xc1]); // "ца" in KOI8-R
    expect(decodeBody(koi8, "text/plain; charset=koi8-r")).toBe("ца");
  });

  it("invalid UTF-8 is read as windows-1252 byte by byte, keeping the valid UTF-8 around it", () => {
    expect(decodeBody(cp1252("Caf\u00e9 \u0093quoted\u0094"))).toBe("Café \u201cquoted\u201d");
    const mixed = new Uint8Array([
      ...new TextEncoder().encode("Board \u2014 "),
      0xe9,
      ...new TextEncoder().encode(" Café"),
    ]);
    expect(decodeBody(mixed, "text/html; charset=utf-8")).toBe("Board \u2014 é Café");
    expect(decodeBody(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe("A");
  });
});

describe("a windows-1252 page is read right by a preset, as by the generic reader", () => {
  it("legistar-html reads Café in 0xE9, with or without the charset header", () => {
    const body = columbusWithCafe();
    const preset = getPlatform("legistar-html")!;
    for (const contentType of [undefined, "text/html; charset=windows-1252"]) {
      const x = preset.extract(body, COLUMBUS, { contentType });
      expect(x.records[0]!.title).toBe("Café Zoning Committee");
    }
    const page = extractWay(
      {
        access: "page",
        url: COLUMBUS,
        extract: { items: "table.rgMasterTable > tbody > tr", title: "[id$='_hypBody']" },
      },
      body,
      COLUMBUS,
      "text/html",
    );
    expect(page.records[0]!.title).toBe("Café Zoning Committee");
  });

  it("P5: legistar-html's year postback goes back in the page's windows-1252, as a browser sends it", () => {
    const text = new TextDecoder("latin1").decode(columbusWithCafe());
    // A text box of the server form holding a Latin letter (RadComboBox inputs are sent).
    const body = cp1252(
      text.replace(
        /(<input type="hidden" name="__VIEWSTATE")/,
        '<input type="text" name="ctl00$Search" value="Caf\u00e9" />$1',
      ),
    );
    const preset = getPlatform("legistar-html")!;
    const x = preset.extract(body, COLUMBUS, { contentType: "text/html; charset=windows-1252" });
    const next = preset.nextRequest!({ method: "GET", url: COLUMBUS }, body, x)!;
    expect(next.body).toContain("ctl00%24Search=Caf%E9&");
  });
});

describe("one JSON reader, one wording", () => {
  const html = new TextEncoder().encode(
    "<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body>busy</body></html>",
  );

  it("a preset and an api way say the same of an HTML page where JSON was expected", () => {
    const want = 'not JSON: an HTML page ("Service Unavailable")';
    for (const name of ["legistar-api", "civicclerk", "primegov", "escribe", "icompass"]) {
      expect(getPlatform(name)!.extract(html, "https://x.example.gov/api").note).toBe(want);
    }
    const api = extractWay(
      { access: "api", url: "https://x.example.gov/api", api: { items: "", title: "t" } },
      html,
      "https://x.example.gov/api",
    );
    expect(api.note).toBe(want);
    expect(readJson(new Uint8Array(0))).toEqual({
      ok: false,
      why: "not JSON: the answer is empty",
    });
  });

  it("a JSON answer that is not JSON is said in the same words by a preset, an api way and a feed way", () => {
    const broken = new TextEncoder().encode(
      '{"version": "https://jsonfeed.org/version/1.1", "items": [',
    );
    const url = "https://x.example.gov/feed.json";
    const feed = extractWay({ access: "feed", url }, broken, url);
    const api = extractWay(
      { access: "api", url, api: { items: "items", title: "t" } },
      broken,
      url,
    );
    const preset = getPlatform("legistar-api")!.extract(broken, url);
    expect(api.note).toMatch(/^not JSON: /);
    expect(preset.note).toBe(api.note);
    expect(feed.note).toBe(`not a feed (${api.note})`);
  });

  it("a BOM, a charset and `//` comment lines before the payload are read by every JSON way", () => {
    const body = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode('// captured\n[{"t":"Café","d":"2026-03-02"}]'),
    ]);
    expect(readJson(body)).toEqual({ ok: true, value: [{ t: "Café", d: "2026-03-02" }] });
    const api = extractWay(
      { access: "api", url: "https://x.example.gov/a", api: { items: "", title: "t", date: "d" } },
      body,
      "https://x.example.gov/a",
    );
    expect(api.records.map((r) => [r.title, r.date])).toEqual([["Café", "2026-03-02"]]);
  });
});
