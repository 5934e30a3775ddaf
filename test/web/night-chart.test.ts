import { load } from "cheerio";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { summaryLines } from "../../src/cli/night-report.js";
import { chartModel, duration } from "../../src/web/console/night-chart.js";
import { CSP } from "../../src/web/manners.js";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/**
 * The night report's chart (P13: the night's time limit): outcomes of the night and time used
 * against the deadline, as an inline SVG image with a name, a description and the same words
 * in a caption; no script, no inline style, so the CSP serves it as it is.
 */
describe("the night report's chart", () => {
  let f: Fixture;
  let b: Browser;

  beforeEach(async () => {
    f = await consoleFixture();
    // Started 08:00Z (03:00 ET), finished 09:00Z, deadline 10:00Z; ok, refused, unreached.
    await seedNight(f.db);
    b = f.browser();
    await b.signIn();
  });
  afterEach(async () => f?.close());

  const chartOf = async (path: string) => {
    const res = await b.get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(CSP);
    const $ = load(await res.text());
    return { $, svg: $("figure.night-chart svg.chart") };
  };

  it("P13: the report shows outcomes and time used against the deadline as an accessible SVG, in words too", async () => {
    const { $, svg } = await chartOf("/console/nights/2026-11-05");
    expect(svg.length).toBe(1);
    expect(svg.attr("role")).toBe("img");
    // Its name and description are the <title> and <desc> it names.
    const [titleId, descId] = (svg.attr("aria-labelledby") ?? "").split(" ");
    expect(svg.find(`title#${titleId}`).text()).toBe(
      "The night's outcomes and the time it used against its deadline",
    );
    const desc = svg.find(`desc#${descId}`).text();
    expect(desc).toContain(
      "Outcomes of 3 sources: ok 1 (33%), refused 1 (33%), unreached 1 (33%).",
    );
    expect(desc).toContain(
      "Started 03:00 ET, finished 04:00 ET: 1 h 00 min of the 2 h 00 min limit (50%), deadline 05:00 ET.",
    );
    expect(desc).toContain("2 sources reached, 1 not reached.");
    // The same words stand under it for everyone.
    const caption = $("figure.night-chart figcaption").text();
    expect(caption).toContain(desc.trim());

    // One bar segment per outcome, in the public strip's colors (refused is a no: red).
    const segs = svg.find("rect[data-kind]").toArray();
    expect(segs.map((r) => $(r).attr("data-kind"))).toEqual(["ok", "refused", "unreached"]);
    expect(segs.map((r) => $(r).attr("fill"))).toEqual(["#2da44e", "#cf222e", "#8c959f"]);
    expect(segs.map((r) => Math.round(Number($(r).attr("width"))))).toEqual([173, 173, 173]);
    // The deadline ends the axis; the finish is half-way along it.
    expect(Number(svg.find("line.deadline-line").attr("x1"))).toBe(520);
    expect(Number(svg.find("line.end-line").attr("x1"))).toBe(260);
    expect(svg.text()).toContain("deadline 05:00");
    expect(svg.text()).toContain("finished 04:00");

    // Nothing the CSP would block: no script, no style attribute or element, no handler.
    expect($("script").length).toBe(0);
    expect(svg.find("[style], style").length).toBe(0);
    for (const el of svg.find("*").toArray()) {
      const attrs = Object.keys((el as { attribs?: Record<string, string> }).attribs ?? {});
      expect(attrs.filter((a) => /^on/i.test(a))).toEqual([]);
    }
  });

  it("the overview shows last night's chart; an unfinished night says so and counts to its last check", async () => {
    expect((await chartOf("/console")).svg.length).toBe(1);
    await f.db
      .updateTable("nights")
      .set({ finished_at: null })
      .where("night", "=", "2026-11-05")
      .execute();
    await f.db
      .updateTable("night_sources")
      .set({ ended_at: "2026-11-05T08:30:00.000Z" })
      .where("source_id", "=", "oh-b-bids")
      .execute();
    const { svg } = await chartOf("/console/nights/2026-11-05");
    const desc = svg.find("desc").text();
    expect(desc).toContain(
      "not finished (last check ended 03:30 ET): 30 min of the 2 h 00 min limit (25%)",
    );
    expect(Number(svg.find("line.end-line").attr("x1"))).toBe(130);
    expect(svg.text()).toContain("last check 03:30");
  });

  it("P13: the night report says a night that ran 1 h 59 min 59 s as 2 h 00 min, as `nor night` says it", async () => {
    await f.db
      .updateTable("nights")
      .set({ finished_at: "2026-11-05T09:59:59.000Z", deadline_at: "2026-11-05T11:00:00.000Z" })
      .where("night", "=", "2026-11-05")
      .execute();
    const { $, svg } = await chartOf("/console/nights/2026-11-05");
    const desc = svg.find("desc").text();
    expect(desc).toContain("finished 04:59 ET: 2 h 00 min of the 3 h 00 min limit (67%)");
    expect(desc).not.toContain("1 h 59 min");
    expect($("figure.night-chart").text()).toContain("Time used: 2 h 00 min of 3 h 00 min (67%)");
    const cli = summaryLines({
      night: "2026-11-05",
      resumed: false,
      startedAt: Date.parse("2026-11-05T08:00:00.000Z"),
      endedAt: Date.parse("2026-11-05T09:59:59.000Z"),
      deadlineAt: Date.parse("2026-11-05T11:00:00.000Z"),
      planned: 3,
      alreadyDone: 0,
      skippedNotRead: 0,
      outcomes: { ok: 1, refused: 1, unreached: 1 },
      newRecords: 1,
      requests: 3,
      flagsRaised: 0,
    });
    expect(cli).toContain("  time:      2h 00m used of 3h 00m to the deadline (06:00 New York)");
  });
});

/**
 * The chart's model and its words, as pure functions: no store, no console, so no fixture of
 * their own (the report's and the overview's use of them is held above).
 */
describe("the night report's chart, its model and durations", () => {
  it("a night that ran past its deadline (resumed) stretches the axis: the deadline line stands inside it", () => {
    const m = chartModel({
      startedAt: "2026-11-05T06:00:00.000Z",
      deadlineAt: "2026-11-05T08:00:00.000Z",
      finishedAt: "2026-11-05T10:00:00.000Z",
      byKind: [{ kind: "ok", count: 1 }],
      ended: ["2026-11-05T09:59:00.000Z"],
    });
    expect(m.limitMs).toBe(2 * 3_600_000);
    expect(m.usedMs).toBe(4 * 3_600_000);
    expect(m.spanMs).toBe(m.usedMs);
  });

  it("a night of 10,000 sources is drawn with at most 240 steps, ending at the last check", () => {
    const start = Date.parse("2026-11-05T06:00:00.000Z");
    const ended = Array.from({ length: 10_000 }, (_, i) =>
      new Date(start + i * 1000).toISOString(),
    );
    const m = chartModel({
      startedAt: new Date(start).toISOString(),
      deadlineAt: new Date(start + 6 * 3_600_000).toISOString(),
      finishedAt: null,
      byKind: [{ kind: "ok", count: 10_000 }],
      ended,
    });
    expect(m.steps.length).toBeLessThanOrEqual(240);
    expect(m.steps.at(-1)).toEqual({ atMs: 9_999_000, done: 10_000 });
    expect(m.steps.map((s) => s.done)).toEqual(
      [...m.steps.map((s) => s.done)].sort((a, z) => a - z),
    );
  });

  it("durations read as a person says them", () => {
    expect(duration(30_000)).toBe("under a minute");
    expect(duration(14 * 60_000)).toBe("14 min");
    expect(duration(2 * 3_600_000 + 5 * 60_000)).toBe("2 h 05 min");
  });

  it("P13: a night's length is rounded to the nearest minute, never down: 1 h 59 min 59 s reads 2 h 00 min", () => {
    expect(duration(2 * 3_600_000 - 1_000)).toBe("2 h 00 min");
    expect(duration(3_600_000 + 29 * 60_000 + 31_000)).toBe("1 h 30 min");
    expect(duration(3_600_000 + 29 * 60_000 + 29_000)).toBe("1 h 29 min");
    expect(duration(60 * 60_000 - 1_000)).toBe("1 h 00 min");
    expect(duration(14 * 60_000 + 59_000)).toBe("15 min");
    expect(duration(59_999)).toBe("under a minute");
    expect(duration(60_000)).toBe("1 min");
  });
});
