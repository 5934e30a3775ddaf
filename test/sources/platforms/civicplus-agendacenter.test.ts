import { describe, expect, it } from "vitest";
import { preset, run } from "./helpers.js";

const P = "civicplus-agendacenter";
const LC =
  "https://nm-lascruces.civicplus.com/AgendaCenter/Search/?term=&CIDs=all&startDate=11/08/2020&endDate=12/15/2020";

describe("civicplus-agendacenter preset", () => {
  it("P6: Las Cruces search: 28 meetings in 20 bodies; agenda, packet and minutes records with ViewFile links", () => {
    const x = run(
      P,
      "civicplus-agendacenter/NM_lascruces_AgendaCenter_Search_2020-11-08_2020-12-15.html",
      LC,
    );
    expect(x.meetings).toHaveLength(28);
    // PROVENANCE counts 88 distinct links = 28 agenda HTML + 28 agenda PDF + 28 packets + 4
    // minutes. The HTML and PDF are one agenda, so records are 28 + 28 + 4 = 60.
    expect(x.records).toHaveLength(60);
    expect(x.records.filter((r) => r.id.endsWith("#agenda"))).toHaveLength(28);
    expect(x.records.filter((r) => r.id.endsWith("#packet"))).toHaveLength(28);
    expect(x.records.filter((r) => r.kind === "minutes")).toHaveLength(4);
    expect(x.records[0]).toEqual({
      id: "11192020-808#agenda",
      title: "Airport Advisory Board Meeting Agenda for November 19, 2020",
      date: "2020-11-19",
      // civic-scraper keeps the `?html=true` twin; the PDF link is the same agenda.
      url: "https://nm-lascruces.civicplus.com/AgendaCenter/ViewFile/Agenda/_11192020-808",
      kind: "agendas",
    });
    expect(x.records.some((r) => r.url?.includes("/PreviousVersions/"))).toBe(false);
    expect(x.records.some((r) => r.title.includes("▼"))).toBe(false);
  });

  it("'Capital Improvements Advisory Committee' has its minutes, agenda and packet", () => {
    const x = run(
      P,
      "civicplus-agendacenter/NM_lascruces_AgendaCenter_Search_2020-11-08_2020-12-15.html",
      LC,
    );
    const cia = x.records.filter((r) =>
      r.title.startsWith("Capital Improvements Advisory Committee"),
    );
    expect(cia.map((r) => r.id.split("#")[1]).sort()).toEqual(["agenda", "minutes", "packet"]);
  });

  it("Nash County search: 2 meetings, each with agenda and minutes (4 ViewFile links)", () => {
    const x = run(
      P,
      "civicplus-agendacenter/NC_nashcounty_AgendaCenter_Search_2020-05-03_2020-05-06.html",
      "http://nc-nashcounty.civicplus.com/AgendaCenter/Search/?term=&CIDs=all&startDate=05/03/2020&endDate=05/06/2020",
    );
    expect(x.records.map((r) => [r.id, r.date, r.kind])).toEqual([
      ["05052020-382#agenda", "2020-05-05", "agendas"],
      ["05052020-382#minutes", "2020-05-05", "minutes"],
      ["05042020-381#agenda", "2020-05-04", "agendas"],
      ["05042020-381#minutes", "2020-05-04", "minutes"],
    ]);
    // The row's own title does not name the body, so the body is put in front of it.
    expect(x.records[0]!.title).toBe(
      "Board of Commissioners: May 5, 2020 Recessed Meeting/Budget Work Session Agenda",
    );
    expect(x.records[2]!.title).toBe("Board of Commissioners: May 4, 2020 Regular Meeting Agenda");
  });

  it("Bartow landing: 93 meetings in 14 bodies, status words kept in titles", () => {
    const x = run(
      P,
      "civicplus-agendacenter/FL_bartow_AgendaCenter_landing.html",
      "https://www.cityofbartow.net/AgendaCenter",
    );
    expect(x.meetings).toHaveLength(93);
    expect(x.records[0]).toMatchObject({
      id: "10222025-388#agenda",
      title: "2025-10-22 Agenda Beautification Advisory Board Meeting",
      date: "2025-10-22",
      url: "https://www.cityofbartow.net/AgendaCenter/ViewFile/Agenda/_10222025-388",
    });
    expect(x.records.at(-1)).toMatchObject({ id: "01222026-407#agenda", date: "2026-01-22" });
    expect(x.records.at(-1)!.title).toContain("Zoning Board of Adjustment");
    expect(x.records.some((r) => /CANCEL+ED/i.test(r.title))).toBe(true);
  });

  it("Chowchilla's older markup (► headers): 41 meetings in 5 bodies", () => {
    const x = run(
      P,
      "civicplus-agendacenter/CA_chowchilla_agendacenter_landing.html",
      "https://www.cityofchowchilla.org/agendacenter",
    );
    expect(x.meetings).toHaveLength(41);
    expect(x.records[0]).toMatchObject({
      id: "08232022-482#agenda",
      title: "City Council Meeting",
      date: "2022-08-23",
    });
    expect(x.records.at(-1)).toMatchObject({ date: "2018-01-25" });
    expect(x.records.at(-1)!.id.startsWith("01252018-216#")).toBe(true);
    expect(
      x.records.at(-1)!.title.startsWith("Redevelopment Successor Agency Oversight Board (Former)"),
    ).toBe(true);
    expect(x.records.some((r) => r.title.includes("►"))).toBe(false);
  });

  it("a search with no results is zero records and a note, without error", () => {
    const x = run(
      P,
      "civicplus-agendacenter/NM_lascruces_AgendaCenter_Search_no_results_2020-08-29.html",
      LC,
    );
    expect(x.records).toEqual([]);
    expect(x.note).toBe("No results found");
  });

  it("P7: the first request is the Search endpoint over a date window; backfill walks a year back per step", () => {
    const p = preset(P);
    const first = p.firstRequest(
      "https://www.cityofbartow.net/AgendaCenter",
      Date.UTC(2026, 3, 18),
    );
    expect(first.url).toBe(
      "https://www.cityofbartow.net/AgendaCenter/Search/?term=&CIDs=all&startDate=04/18/2025&endDate=04/18/2027&dateRange=&dateSelector=",
    );
    const x = run(P, "civicplus-agendacenter/FL_bartow_AgendaCenter_landing.html", first.url);
    const next = p.nextRequest!(first, x.body, x)!;
    const u = new URL(next.url);
    expect([u.searchParams.get("startDate"), u.searchParams.get("endDate")]).toEqual([
      "04/18/2024",
      "04/17/2025",
    ]);
    const none = run(
      P,
      "civicplus-agendacenter/NM_lascruces_AgendaCenter_Search_no_results_2020-08-29.html",
      next.url,
    );
    expect(p.nextRequest!(next, none.body, none)).toBeUndefined();
  });
});
