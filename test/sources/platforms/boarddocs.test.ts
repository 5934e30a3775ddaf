import { describe, expect, it } from "vitest";
import { allAbsolute, ISO, preset, run } from "./helpers.js";

const COLUMBUS = "https://go.boarddocs.com/oh/columbus/Board.nsf/BD-GetMeetingsList?open";
const CPS = "https://go.boarddocs.com/oh/cps/Board.nsf/BD-GetMeetingsList?open";
const AKRON = "https://go.boarddocs.com/oh/akron/Board.nsf/XML-ActiveMeetings";

function years(dates: (string | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of dates) if (d) out[d.slice(0, 4)] = (out[d.slice(0, 4)] ?? 0) + 1;
  return out;
}

describe("boarddocs preset", () => {
  it("P6: boarddocs BD-GetMeetingsList gives 764 meetings with goto links, never fetched", () => {
    const x = run(
      "boarddocs",
      "boarddocs/OH_columbus_city_schools_BD-GetMeetingsList.json",
      COLUMBUS,
    );
    // 765 elements: 764 meetings and the trailing `{}`, which is not a record.
    expect(x.records).toHaveLength(764);
    expect(x.records[0]).toEqual({
      id: "DQ3VPX80F260",
      title: "REGULAR BOARD BUSINESS MEETING",
      date: "2026-02-17",
      url: "https://go.boarddocs.com/oh/columbus/Board.nsf/goto?open&id=DQ3VPX80F260",
      kind: "meetings",
    });
    expect(x.records.at(-1)).toMatchObject({
      id: "9G9NHW560012",
      title: "COMMUNITY LINKAGE MEETING",
      date: "2014-03-04",
    });
    const y = years(x.records.map((r) => r.date));
    expect([y["2026"], y["2025"], y["2024"], y["2023"], y["2022"]]).toEqual([8, 52, 67, 69, 77]);
    expect(x.records.some((r) => r.title.startsWith("Postponed to February 3, 2026--"))).toBe(true);
    expect(
      x.records.every(
        (r) => r.url?.includes("/Board.nsf/goto?open&id=") && r.date && ISO.test(r.date),
      ),
    ).toBe(true);
  });

  it("P6: Cincinnati's compact list gives 462 meetings newest first, trailing {} dropped", () => {
    const x = run(
      "boarddocs",
      "boarddocs/OH_cincinnati_public_schools_BD-GetMeetingsList.json",
      CPS,
    );
    expect(x.records).toHaveLength(462);
    expect(x.records[0]).toMatchObject({
      id: "DC2QWY6B5DDA",
      title: "Budget, Finance and Growth Committee Meeting",
      date: "2024-12-20",
    });
    expect(x.records.at(-1)).toMatchObject({ title: "Board Business Meeting", date: "2018-04-04" });
    const y = years(x.records.map((r) => r.date));
    expect([y["2024"], y["2023"], y["2022"], y["2021"]]).toEqual([77, 84, 87, 84]);
    expect(allAbsolute(x.records)).toBe(true);
  });

  it("tolerates Akron's malformed XML-ActiveMeetings: 21 <meeting>s, 15 archive folders skipped", () => {
    // Strict XML parsers stop at line 1425; cutting on <meeting …> reads all 21.
    const x = run("boarddocs", "boarddocs/OH_akron_public_schools_XML-ActiveMeetings.xml", AKRON);
    expect(x.records.map((r) => r.id)).toEqual([
      "BEDLSF53B224",
      "BEJFZW419C06",
      "BETJVL4D2ECC",
      "BF9NYE620A89",
      "BFPNYJ621169",
      "BFPP3S6262FE",
    ]);
    expect(x.records[0]).toEqual({
      id: "BEDLSF53B224",
      title: "REGULAR BOARD MEETING",
      date: "2019-08-12",
      url: "http://go.boarddocs.com/oh/akron/Board.nsf/goto?open&id=BEDLSF53B224",
      kind: "meetings",
    });
    expect(x.records.at(-1)).toMatchObject({ id: "BFPP3S6262FE", date: "2019-09-23" });
    expect(x.records.some((r) => /Archive$/.test(r.title))).toBe(false);
    expect(x.note).toMatch(/15 yearly archive/);
  });

  it("the Public landing page is a script shell: no records, never invented", () => {
    const x = run(
      "boarddocs",
      "boarddocs/PA_state_college_asd_Public_shell.html",
      "https://go.boarddocs.com/pa/stco/Board.nsf/Public",
    );
    expect(x.records).toEqual([]);
    expect(x.note).toBe("script shell: use BD-GetMeetingsList");
  });

  it("an empty answer (wrong committee id) is no records with a note, not an error", () => {
    const x = preset("boarddocs").extract(new Uint8Array(0), COLUMBUS);
    expect(x.records).toEqual([]);
    expect(x.note).toMatch(/committee id/);
  });

  it("P4: first request is the BD-GetMeetingsList POST when the committee is known, else the XML feed", () => {
    const p = preset("boarddocs");
    expect(p.access).toBe("api");
    expect(
      p.firstRequest(
        "https://go.boarddocs.com/oh/columbus/Board.nsf/Public?committee=A9HCZC5E5A4B",
        0,
      ),
    ).toEqual({
      method: "POST",
      url: "https://go.boarddocs.com/oh/columbus/Board.nsf/BD-GetMeetingsList?open",
      body: "current_committee_id=A9HCZC5E5A4B",
      contentType: "application/x-www-form-urlencoded",
      accept: "application/json",
    });
    expect(p.firstRequest("https://go.boarddocs.com/oh/akron/Board.nsf/Public", 0)).toMatchObject({
      method: "GET",
      url: AKRON,
    });
  });
});
