import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { NOTE_MAX } from "../../src/policy/shown-text.js";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, outcomesOn, TESTER_GAP_MS, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * What an outside tester found (session 25), proved from a real `nor night` against a loopback
 * site and from what the store and the commands then show:
 * - a site's own error text (a Legistar API's ExceptionMessage) became the night's reason as it
 *   was sent, escape sequences, line breaks and all, and `nor status` wrote it to the
 *   operator's terminal: a site could clear the screen or retitle the window, and break the
 *   status table's columns;
 * - a second `nor night` joining or resuming a night with another --user-agent was let run:
 *   some sites were sent one contact, others another, and the site-owners page named the last.
 */
const world = testerWorld("nor-tester25-");

const noRobots = (_q: IncomingMessage, res: ServerResponse) => void res.writeHead(404).end();

describe("found from outside, session 25", () => {
  it("P23: a site's own error text is kept and shown as one line of text, without controls, bounded", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    const hostile = `boom \u001b[2J\u001b]0;PWNED\u0007 \u009b31m here\r\nsecond\tline \u202eevil ${"x".repeat(5000)}`;
    site.route("/v1/kent/events", (_q, res) => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ Message: "err", ExceptionMessage: hostile }));
    });
    const catalog = testerCatalog(world.dir, "legistar-error", [
      "  - id: kent-events",
      "    government: city-of-test",
      "    records: meetings",
      "    access: api",
      "    platform: legistar-api",
      `    url: "${site.url("/v1/kent/events")}"`,
    ]);
    const data = `${world.dir}/legistar-error`;
    await nightOn(catalog, data, "2026-11-05");
    expect(site.requests.some((r) => r.path.startsWith("/v1/kent/events"))).toBe(true);
    const row = outcomesOn(data, "2026-11-05")["kent-events"];
    const reason = row?.reason ?? "";
    expect(reason).toMatch(/^Legistar API error: boom /);
    expect(reason).toContain("here second line evil x");
    expect(reason).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(reason.length).toBeLessThanOrEqual(NOTE_MAX);
    expect(reason.endsWith("…")).toBe(true);

    const status = await runMain(["status", "--data", data]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("Legistar API error: boom");
    // Only the table's own tabs and line ends: nothing of the site's controls.
    expect(status.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const line = status.stdout.split("\n").find((l) => l.startsWith("kent-events\t")) ?? "";
    expect(line.split("\t")).toHaveLength(10);
  });

  it("P1, P2: a night keeps one User-Agent: a process that would run or resume it with another sends nothing (exit 2), naming the night's", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/feed.xml", (_q, res) => {
      res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(
          `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>Agenda</title><link>${site.url("/a/1")}</link></item></channel></rss>`,
        );
    });
    const catalog = testerCatalog(world.dir, "one-identity", [
      `  - { id: agendas, government: city-of-test, records: agendas, access: feed, url: "${site.url("/feed.xml")}" }`,
    ]);
    const data = join(world.dir, "one-identity");
    await nightOn(catalog, data, "2026-11-05");
    const seen = site.requests.length;
    expect(seen).toBeGreaterThan(0);
    const other = "public-records-check/0.1 (+mailto:someone-else@example.org)";
    const night = (ua?: string) =>
      runMain([
        ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
        ...["--allow-private-addresses", "--gap-ms", String(TESTER_GAP_MS)],
        ...(ua ? ["--user-agent", ua] : []),
      ]);
    const refused = await night(other);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'night 2026-11-05 already introduces itself as "public-records-check/0.1 (+mailto:frankie@outpostagencies.com)"',
    );
    expect(site.requests.length).toBe(seen);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const row = db
        .prepare("select user_agent, finished_at, runs from nights where night = ?")
        .get("2026-11-05") as { user_agent: string; finished_at: string | null; runs: number };
      expect(row.user_agent).toBe("public-records-check/0.1 (+mailto:frankie@outpostagencies.com)");
      // Refused before the night was touched: it stays finished, its runs uncounted.
      expect(row.finished_at).not.toBeNull();
      expect(row.runs).toBe(1);
    } finally {
      db.close();
    }
    // The night's own identity resumes it; the next night may introduce itself anew.
    expect((await night()).code).toBe(0);
    const next = await runMain([
      ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-06"],
      ...["--allow-private-addresses", "--gap-ms", String(TESTER_GAP_MS), "--user-agent", other],
    ]);
    expect(next.code).toBe(0);
    expect(site.requests.at(-1)?.headers["user-agent"]).toBe(other);
  });
});
