import { describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const AKRON =
  "https://onlinedocs.akronohio.gov/OnBaseAgendaOnline/Meetings/Search?dropid=11&mtids=101";

describe("onbase-agendaonline preset", () => {
  it("P6: Akron City Council search: 8 meetings; one date though the row writes it three ways", () => {
    const x = run(
      "onbase-agendaonline",
      "onbase-agendaonline/OH_akron_city_council_Meetings_Search.html",
      AKRON,
    );
    expect(x.meetings).toHaveLength(8);
    // The first meeting has no agenda yet: one meetings record.
    expect(x.records[0]).toEqual({
      id: "263",
      title: "City Council Meeting",
      date: "2019-09-23T19:00:00-04:00",
      kind: "meetings",
    });
    expect(x.records[1]).toEqual({
      id: "262#doctype-1",
      title: "City Council Meeting",
      date: "2019-09-16T19:00:00-04:00",
      url: "https://onlinedocs.akronohio.gov/OnBaseAgendaOnline/Meetings/ViewMeeting?id=262&doctype=1",
      kind: "agendas",
    });
    // The viewer and the PDF download of one agenda are one record.
    expect(x.records.filter((r) => r.id.startsWith("262"))).toHaveLength(1);
  });
});
