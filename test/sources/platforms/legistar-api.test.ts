import { describe, expect, it } from "vitest";
import { LEGISTAR_PAGE } from "../../../src/sources/platforms/legistar-api.js";
import { preset, run } from "./helpers.js";

const OLYMPIA = "https://webapi.legistar.com/v1/olympia/events?$top=3&$skip=0";

describe("legistar-api preset", () => {
  it("P4: the first request is the Web API with $top/$skip, newest first", () => {
    const p = preset("legistar-api");
    expect(p.access).toBe("api");
    const r = p.firstRequest("https://webapi.legistar.com/v1/olympia/events", 0);
    const u = new URL(r.url);
    expect(r.method).toBe("GET");
    expect(u.pathname).toBe("/v1/olympia/events");
    expect(u.searchParams.get("$top")).toBe(String(LEGISTAR_PAGE));
    expect(u.searchParams.get("$skip")).toBe("0");
    expect(u.searchParams.get("$orderby")).toBe("EventDate desc");
    expect(
      new URL(p.firstRequest("https://mecklenburg.legistar.com/Calendar.aspx", 0).url).pathname,
    ).toBe("/v1/mecklenburg/events");
  });

  it("P6: Olympia's 3 events give agenda records with date and time joined, links noted", () => {
    const x = run("legistar-api", "legistar-api/WA_olympia_events.json", OLYMPIA);
    expect(x.meetings).toEqual(["6949", "7268", "7006"]);
    expect(x.records[0]).toMatchObject({
      id: "6949#agenda",
      title: "Site Plan Review Committee",
      // EventDate midnight is not the meeting time: EventTime 9:00 AM is.
      date: "2026-08-26T09:00:00-07:00",
      kind: "agendas",
    });
    expect(x.records[0]!.url).toMatch(
      /^https:\/\/legistar\.granicus\.com\/olympia\/meetings\/2026\/8\/6949_A_/,
    );
    expect(x.records.find((r) => r.id.startsWith("7268"))).toMatchObject({
      title: "Lodging Tax Advisory Committee",
      date: "2026-08-21T16:00:00-07:00",
    });
    expect(x.records.find((r) => r.id.startsWith("7006"))?.date).toBe("2026-08-20T17:30:00-07:00");
  });

  it("P7: a full page ($top=3, 3 events) points at the next page with $skip+3; nextRequest follows it", () => {
    const p = preset("legistar-api");
    const x = run("legistar-api", "legistar-api/WA_olympia_events.json", OLYMPIA);
    expect(new URL(x.next!).searchParams.get("$skip")).toBe("3");
    expect(p.nextRequest!({ method: "GET", url: OLYMPIA }, x.body, x)).toEqual({
      method: "GET",
      url: x.next,
      accept: "application/json",
    });
    // A short page (2 of $top=200) is the end.
    const last = run(
      "legistar-api",
      "legistar-api/NC_mecklenburg_events_trimmed.json",
      "https://webapi.legistar.com/v1/mecklenburg/events?$top=200&$skip=400",
    );
    expect(last.next).toBeUndefined();
    expect(p.nextRequest!({ method: "GET", url: "x" }, last.body, last)).toBeUndefined();
  });

  it("Mecklenburg's trimmed events (field subset) still give both meetings", () => {
    const x = run(
      "legistar-api",
      "legistar-api/NC_mecklenburg_events_trimmed.json",
      "https://webapi.legistar.com/v1/mecklenburg/events",
    );
    expect(x.records.map((r) => [r.id, r.title, r.date])).toEqual([
      ["1802#agenda", "Budget Public Policy", "2025-01-14T14:30:00-05:00"],
      ["1895#agenda", "Board of Commissioners", "2026-04-07T17:00:00-04:00"],
    ]);
    expect(
      x.records.every((r) => r.url?.startsWith("https://legistar1.granicus.com/Mecklenburg/")),
    ).toBe(true);
  });

  it("tolerates the `//` comment lines before Polk County's JSON: 2 events", () => {
    const x = run(
      "legistar-api",
      "legistar-api/FL_polkcounty_events_top2_commented.json",
      "https://webapi.legistar.com/v1/polkcountyfl/Events?$top=2&$skip=0",
    );
    expect(x.records.map((r) => [r.id, r.title, r.date])).toEqual([
      ["1841#agenda", "Polk County Land Use Hearing Officer", "2026-04-23"],
      ["1816#agenda", "Board of County Commissioners", "2026-04-21"],
    ]);
  });

  it("an unconfigured client's HTTP 500 body is no records and a note naming why", () => {
    const x = run(
      "legistar-api",
      "legistar-api/FL_lakewales_events_error.json",
      "https://webapi.legistar.com/v1/lakewalesfl/events",
    );
    expect(x.records).toEqual([]);
    expect(x.note).toBe(
      "Legistar API error: LegistarConnectionString setting is not set up in InSite for client: lakewalesfl",
    );
    expect(x.next).toBeUndefined();
  });
});
