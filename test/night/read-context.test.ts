import { afterEach, describe, expect, it } from "vitest";
import { checkSource } from "../../src/night/check-source.js";
import type { ValidatorStore } from "../../src/night/reader.js";
import { wayReader } from "../../src/night/way-reader.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots } from "../fleet/routes.js";
import { fixture } from "../sources/platforms/helpers.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NONE: ValidatorStore = { get: async () => undefined };
const HISTORY = { reading: true, unreachedLast: false, recentOutcomes: [], recordsKnown: 0 };

/** Columbus's Legistar calendar, its first body renamed "Café …" and written in windows-1252. */
function calendar(rename?: (html: string) => string): Uint8Array {
  let text = new TextDecoder("latin1").decode(
    fixture(["legistar-html", "OH_columbus_Calendar.aspx.html"].join("/")),
  );
  text = text.replaceAll("Zoning Committee", "Caf\u00e9 Zoning Committee");
  if (rename) text = rename(text);
  return new Uint8Array([...text].map((c) => c.charCodeAt(0)));
}

function source(url: string, timezone?: string): Source {
  return {
    id: "calendar",
    government: "g",
    records: "meetings",
    url,
    access: "form",
    platform: "legistar-html",
    alternates: [],
    backfill: { pagesPerNight: 0 },
    confirmed: false,
    ...(timezone ? { timezone } : {}),
  };
}

/**
 * What the night hands a preset besides the bytes: the answer's charset (the one body
 * decoder) and the government's zone (catalog `timezone`); and what it makes of a page the
 * preset cannot read for sure (P6: extract-error with the reason, never fewer records).
 */
describe("the night reads a preset's page with its charset and its government's zone", () => {
  it("P6: a windows-1252 page named by its Content-Type, a Chicago government: Café, at -06:00", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/Calendar.aspx", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=windows-1252" }).end(calendar());
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader: wayReader, validators: NONE };
    const result = await checkSource(
      ctx,
      source(s.url("/Calendar.aspx"), "America/Chicago"),
      HISTORY as never,
    );
    expect(result.outcome.kind).toBe("ok");
    expect(result.records[0]).toMatchObject({
      title: "Café Zoning Committee",
      date: "2026-02-23T18:30:00-06:00",
    });
  });

  it("P6: a calendar grid whose columns the preset cannot tell is extract-error with the reason, not no-records", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/Calendar.aspx", (_q, res) => {
      const body = calendar((html) =>
        html.replace(/>Name</g, ">Nombre<").replace(/>Meeting Date</g, ">Fecha<"),
      );
      res.writeHead(200, { "content-type": "text/html" }).end(body);
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader: wayReader, validators: NONE };
    const result = await checkSource(ctx, source(s.url("/Calendar.aspx")), HISTORY as never);
    expect(result.records).toEqual([]);
    expect(result.outcome).toMatchObject({
      kind: "extract-error",
      status: 200,
      reason: expect.stringMatching(/without Name and Meeting Date headers.*nombre, fecha/),
    });
  });
});
