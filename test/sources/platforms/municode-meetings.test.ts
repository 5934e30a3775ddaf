import { describe, expect, it } from "vitest";
import { preset, run } from "./helpers.js";

const CLOVIS =
  "https://meetings.municode.com/PublishPage?cid=CLOVIS&ppid=5157d66d-a361-43e8-87a4-3d5eca4821de&p=1";
const TUMWATER = "https://tumwater-wa.municodemeetings.com/?page=0";

describe("municode-meetings preset", () => {
  it("P6: Clovis PublishPage: 10 meetings; agenda, packet and minutes links noted, never fetched", () => {
    const x = run("municode-meetings", "municode-meetings/CA_clovis_PublishPage.html", CLOVIS);
    expect(x.meetings).toHaveLength(10);
    expect(x.records[0]).toMatchObject({
      id: "7b1add8e8e3441b7aa5d36b337aacb2c#agenda",
      title: "City Council Meeting",
      date: "2022-08-01T18:00:00-07:00",
      kind: "agendas",
    });
    expect(x.records[0]!.url).toMatch(
      /^https:\/\/meetings\.municode\.com\/d\/f\?u=https:\/\/mccmeetings\.blob\.core\.usgovcloudapi\.net\/clovis-pubu\/MEET-Agenda-7b1add8e/,
    );
    expect(x.records[1]).toMatchObject({ id: "7b1add8e8e3441b7aa5d36b337aacb2c#agenda-packet" });
    expect(x.records[1]!.url).toContain("MEET-Packet-7b1add8e");
    // The YouTube multimedia link is off-site video, not a document of the list.
    expect(x.records.some((r) => r.url?.includes("youtu"))).toBe(false);
    expect(x.records.at(-1)!.date!.slice(0, 10)).toBe("2022-04-18");
  });

  it("P7: Clovis page 1 of 10 points at &p=2; the last page has no next", () => {
    const p = preset("municode-meetings");
    const x = run("municode-meetings", "municode-meetings/CA_clovis_PublishPage.html", CLOVIS);
    expect(x.next).toBe(CLOVIS.replace("&p=1", "&p=2"));
    expect(p.nextRequest!({ method: "GET", url: CLOVIS }, x.body, x)).toEqual({
      method: "GET",
      url: x.next,
      accept: "text/html",
    });
    const last = run(
      "municode-meetings",
      "municode-meetings/CA_clovis_PublishPage.html",
      CLOVIS.replace("&p=1", "&p=10"),
    );
    expect(last.next).toBeUndefined();
  });

  it("Tumwater (Drupal municodemeetings.com): 5 meetings with the page's own ISO time and offset", () => {
    const x = run(
      "municode-meetings",
      "municode-meetings/WA_tumwater_municodemeetings_trimmed.html",
      TUMWATER,
    );
    expect(x.meetings).toHaveLength(5);
    expect(x.records[0]).toEqual({
      id: "e5993d899da74002884cd68fd8ffb443#agenda",
      title: "Public Works Committee",
      date: "2026-08-20T11:00:00-07:00",
      url: "https://mccmeetings.blob.core.usgovcloudapi.net/tumwater-pubu/MEET-Agenda-e5993d899da74002884cd68fd8ffb443.pdf",
      kind: "agendas",
    });
    // The trimmed fixture has no pager: no next page is claimed.
    expect(x.next).toBeUndefined();
  });
});
