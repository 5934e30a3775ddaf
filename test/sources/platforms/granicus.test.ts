import { describe, expect, it } from "vitest";
import { allAbsolute, preset, run } from "./helpers.js";

const PAGE = "https://lakewales.granicus.com/ViewPublisher.php?view_id=1";
const FEED = "https://lakewales.granicus.com/ViewPublisherRSS.php?view_id=1&mode=agendas";

describe("granicus preset", () => {
  it("P4: given the ViewPublisher page, the first request is its agenda feed", () => {
    const p = preset("granicus");
    expect(p.access).toBe("feed");
    expect(p.firstRequest(PAGE, 0)).toMatchObject({ method: "GET", url: FEED });
  });

  it("ViewPublisherRSS: 100 agendas, dated by the title's '- Mon DD, YYYY', not the -0800 pubDate", () => {
    const x = run("granicus", "granicus/FL_lakewales_ViewPublisherRSS_agendas.xml", FEED);
    expect(x.records).toHaveLength(100);
    expect(x.records[0]).toEqual({
      id: "clip:957#agenda",
      title: "City Commission Workshop Meeting 04-15-26",
      date: "2026-04-15",
      url: "https://lakewales.granicus.com/AgendaViewer.php?view_id=1&clip_id=957",
      kind: "agendas",
    });
    expect(x.records.at(-1)).toMatchObject({
      id: "clip:713#agenda",
      title: "City Commission Regular Meeting 09-04-2024",
      date: "2024-09-04",
    });
  });

  it("P6: ViewPublisher page: no upcoming events; 144 archived clips, protocol-relative links made absolute", () => {
    const x = run("granicus", "granicus/FL_lakewales_ViewPublisher.html", PAGE);
    expect(x.meetings).toHaveLength(144);
    expect(x.records.filter((r) => r.kind === "agendas")).toHaveLength(137);
    expect(x.records[0]).toEqual({
      id: "clip:957#agenda",
      title: "City Commission Workshop Meeting 04-15-26",
      // NBSP-padded `Apr 15, 2026 - 01:58 PM` (clip time).
      date: "2026-04-15T13:58:00-04:00",
      url: "https://lakewales.granicus.com/AgendaViewer.php?view_id=1&clip_id=957",
      kind: "agendas",
    });
    // The video link lives only in onclick window.open('//…MediaPlayer.php…').
    expect(x.records[1]).toMatchObject({
      id: "clip:957#video",
      url: "https://lakewales.granicus.com/MediaPlayer.php?view_id=1&clip_id=957",
    });
    const last = x.records.filter((r) => r.id.startsWith(`${x.meetings.at(-1)}#`));
    expect(last[0]).toMatchObject({ title: "City Commission Regular Meeting 01-02-2024" });
    expect(last[0]!.date!.slice(0, 10)).toBe("2024-01-02");
    expect(allAbsolute(x.records)).toBe(true);
  });

  it("the feed and the page give the same ids, so switching ways in makes nothing look new", () => {
    const feed = run("granicus", "granicus/FL_lakewales_ViewPublisherRSS_agendas.xml", FEED);
    const page = new Set(
      run("granicus", "granicus/FL_lakewales_ViewPublisher.html", PAGE).records.map((r) => r.id),
    );
    expect(feed.records.filter((r) => page.has(r.id)).length).toBeGreaterThan(90);
  });
});
