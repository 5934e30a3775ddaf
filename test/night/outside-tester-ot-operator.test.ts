import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatInZone, SITE_OWNER_ZONE } from "../../src/policy/zone.js";
import { openStore } from "../../src/store/db.js";
import { outcomeLabel } from "../../src/web/public/format.js";
import { runMain } from "../cli/cli-capture.js";
import { interruptedNight } from "../cli/interrupted-night.js";
import { nightOn, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * What an outside tester on the operator's side found (ot-operator), proved from real nights
 * against loopback sites: a source whose site asked for a wait that outlasts the night (a
 * Retry-After of two days), or whose owner asked for a day between requests (`nor site --gap
 * 24h`), was recorded as "unreached (the night's time limit passed)", and the directory said
 * "not reached (the night ran out of time)", for a night that finished in seconds with hours
 * left. The site was rightly not asked; the words now say why.
 *
 * And `nor discover` run during a night (whose requests are that night's) sent its own
 * User-Agent: a shell without the service's NOR_USER_AGENT sent the built-in contact to a site
 * the night had been introducing itself to as another operator's.
 */
const world = testerWorld("nor-tester-ot-operator-");

const waitWords = (minute: string) =>
  `the site asked to wait until ${minute} New York time (a Retry-After, or the wait before a retry), after the night's deadline`;

const noRobots = (_q: IncomingMessage, res: ServerResponse) => void res.writeHead(404).end();

const feed = (_q: IncomingMessage, res: ServerResponse) =>
  void res
    .writeHead(200, { "content-type": "application/rss+xml" })
    .end(
      '<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>Agenda</title><link>http://127.0.0.1/a/1</link></item></channel></rss>',
    );

describe("found from outside, the operator's side (ot-operator)", () => {
  it("P13, P15: sources not asked because the site's Retry-After outlasts the night say so, never 'the night's time limit passed'", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    // When the 503 was sent: the wait of two days it asks for ends two days after an instant
    // from then to the night's end.
    let askedAt = Number.NaN;
    site.route("/busy.xml", (_q, res) => {
      askedAt = Date.now();
      res.writeHead(503, { "retry-after": String(2 * 24 * 3600) }).end("busy");
    });
    site.route("/other.xml", feed);
    const catalog = testerCatalog(world.dir, "held", [
      `  - { id: busy, government: city-of-test, records: agendas, access: feed, url: "${site.url("/busy.xml")}" }`,
      `  - { id: other, government: city-of-test, records: minutes, access: feed, url: "${site.url("/other.xml")}" }`,
    ]);
    const data = join(world.dir, "held");
    await nightOn(catalog, data, "2026-11-05");
    const endedAt = Date.now();
    const first = outcomesOn(data, "2026-11-05");
    expect(first["busy"]?.outcome).toBe("error");
    expect(first["busy"]?.reason).toContain("retry-after-too-long");
    const other = first["other"];
    // The site asked for two days: nothing more was asked of it (P15), and the words say why.
    expect(site.requests.map((r) => r.path)).toEqual(["/robots.txt", "/busy.xml"]);
    expect(other?.outcome).toBe("unreached");
    // Shown to the minute, New York time, whatever the year.
    const minuteOf = (t: number) =>
      formatInZone(t + 2 * 24 * 3600 * 1000, SITE_OWNER_ZONE).slice(0, 16);
    const shown = /until (\d{4}-\d\d-\d\d \d\d:\d\d) New York/.exec(other?.reason ?? "")?.[1] ?? "";
    expect(other?.reason).toBe(waitWords(shown));
    expect([minuteOf(askedAt) <= shown, shown <= minuteOf(endedAt)]).toEqual([true, true]);
    // The next night (loopback runs it at once) still asks nothing, and says the same.
    await nightOn(catalog, data, "2026-11-06");
    expect(site.requests).toHaveLength(2);
    const second = outcomesOn(data, "2026-11-06");
    for (const id of ["busy", "other"]) {
      expect(second[id]?.outcome).toBe("unreached");
      expect(second[id]?.reason).toMatch(/^the site asked to wait until /);
    }
    const status = await runMain(["status", "--data", data]);
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain("the night's time limit passed");
    // The night's own line says them apart from sources the deadline left (P13).
    expect(status.stdout).toContain(
      "2 sources with an outcome, 2 of them not asked: their site's wait or its owner's pace ends after the night (they go first next night)",
    );
    expect(status.stdout).not.toContain("not reached before the deadline");
    expect(outcomeLabel("unreached", second["other"]?.reason).text).toBe(
      "not asked: the site asked to wait",
    );
  });

  it("P10, P13: sources an owner's day-long gap keeps from the night say so, with the owner's words", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/a.xml", feed);
    site.route("/b.xml", feed);
    const catalog = testerCatalog(world.dir, "paced", [
      `  - { id: pa, government: city-of-test, records: agendas, access: feed, url: "${site.url("/a.xml")}" }`,
      `  - { id: pb, government: city-of-test, records: minutes, access: feed, url: "${site.url("/b.xml")}" }`,
    ]);
    const data = join(world.dir, "paced");
    expect((await runMain(["catalog", "import", catalog, "--data", data])).code).toBe(0);
    const set = await runMain([
      ...["site", site.host, "--data", data, "--gap", "24h"],
      ...["--reason", "owner, e-mail of 2026-11-01: once a day"],
    ]);
    expect(set.code, set.stderr).toBe(0);
    await nightOn(catalog, data, "2026-11-05");
    // robots.txt is the day's one request; the pages wait for the next day.
    expect(site.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
    const night = outcomesOn(data, "2026-11-05");
    for (const id of ["pa", "pb"]) {
      expect(night[id]?.outcome).toBe("unreached");
      expect(night[id]?.reason).toMatch(
        /^the site's owner asked for at least 24 h between requests \(\d{4}-\d\d-\d\d: owner, e-mail of 2026-11-01: once a day\): its next request may start at \d{4}-\d\d-\d\d \d\d:\d\d New York time, after the night's deadline$/,
      );
    }
    expect(outcomeLabel("unreached", night["pa"]?.reason).text).toBe(
      "not asked: the site owner's slower pace",
    );
    // The night's own time running out keeps its words.
    expect(outcomeLabel("unreached", "the night's time limit passed").text).toBe(
      "not reached (the night ran out of time)",
    );
  });

  it("P1, P2: nor discover during a night introduces itself as that night does: another User-Agent sends nothing (exit 2), naming the night's", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Home</body></html>");
    });
    site.route("/a.xml", feed);
    const catalog = testerCatalog(world.dir, "discover-ua", [
      `  - { id: da, government: city-of-test, records: agendas, access: feed, url: "${site.url("/a.xml")}" }`,
    ]);
    const data = join(world.dir, "discover-ua");
    // The service's night, under way, begun with the operator's own contact (NOR_USER_AGENT).
    const theirs = "public-records-check/0.1 (+mailto:clerk@example.org)";
    const now = Date.now();
    await interruptedNight(catalog, data, {
      night: "2026-11-05",
      startedAt: new Date(now - 60_000).toISOString(),
      deadlineAt: new Date(now + 3_600_000).toISOString(),
    });
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      await store.db.updateTable("nights").set({ user_agent: theirs }).execute();
    } finally {
      await store.close();
    }
    const discover = (ua?: string) =>
      runMain([
        ...["discover", site.url("/"), "--data", data, "--allow-private-addresses"],
        ...["--gap-ms", "50"],
        ...(ua ? ["--user-agent", ua] : []),
      ]);
    // A shell without NOR_USER_AGENT: the built-in contact, refused before anything is asked.
    const refused = await discover();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `night 2026-11-05 is under way on this store and introduces itself as "${theirs}"`,
    );
    expect(site.requests).toHaveLength(0);
    // With the night's own, it asks, and the site sees one contact.
    const asked = await discover(theirs);
    expect(asked.code, asked.stderr).toBe(0);
    expect(site.requests.length).toBeGreaterThan(0);
    expect(new Set(site.requests.map((r) => r.headers["user-agent"]))).toEqual(new Set([theirs]));
  });
});
