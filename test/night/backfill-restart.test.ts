import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { BACKFILL_UNANSWERED_NIGHTS } from "../../src/policy/constants.js";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P7, across real nights (`nor night` in-process, a loopback site): an older page that answers
 * 500 every night is no miss (asked again night after night, not given up after three); the
 * backfill gives up on it only after BACKFILL_UNANSWERED_NIGHTS nights running, and then says
 * so where the operator looks (`nor site SITE`, its `--json`, `nor status --json`); `nor
 * backfill restart` asks that page again the next night.
 */
const world = testerWorld("nor-backfill-restart-");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const list = (rows: string[], next?: string) =>
  `<ul>${rows.map((r) => `<li><a href="/d/${r}.pdf">${r}</a> <span>11/01/2026</span></li>`).join("")}</ul>${next ? `<a class="next" href="${next}">Next</a>` : ""}`;

function backfillRow(data: string, id: string) {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    return db
      .prepare("select done, cursor, pages_read, ended from backfill where source_id = ?")
      .get(id) as { done: number; cursor: string | null; pages_read: number; ended: string | null };
  } finally {
    db.close();
  }
}

/** The nights the cursor's page got no answer, set as if the nights before had been run. */
function setUnanswered(data: string, id: string, nights: number): void {
  const db = new Database(join(data, "nor.db"));
  try {
    const { cursor } = db.prepare("select cursor from backfill where source_id = ?").get(id) as {
      cursor: string;
    };
    db.prepare("update backfill set cursor = ? where source_id = ?").run(
      JSON.stringify({ ...JSON.parse(cursor), unansweredNights: nights }),
      id,
    );
  } finally {
    db.close();
  }
}

describe("P7: a backfill that gives up, said and restarted", () => {
  it("P7, P15: an older page answering 500 every night is asked again past three nights; given up after BACKFILL_UNANSWERED_NIGHTS, said by `nor site` (and --json), `nor status` (and --json) and a flag; `nor backfill restart` asks it again", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    const html = (res: import("node:http").ServerResponse, s: string) =>
      void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
    site.route("/bf", (_q, res) => html(res, list(["new"], "/bf-older")));
    let mended = false;
    site.route("/bf-older", (_q, res) => {
      if (mended) return html(res, list(["old"]));
      res.writeHead(500, { "retry-after": "0" }).end("Server Error");
    });
    const catalog = testerCatalog(world.dir, "restart", [
      `  - { id: bf, government: city-of-test, records: agendas, url: "${site.url("/bf")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "restart");
    const older = site.url("/bf-older");
    // An IP literal is its own site (P9).
    const host = site.host;

    // Four nights of 500s (three tries each, P15): still going on, the page kept.
    for (const night of ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23"])
      await nightOn(catalog, data, night);
    expect(site.hits("/bf-older")).toHaveLength(12);
    expect(backfillRow(data, "bf")).toMatchObject({ done: 0, ended: null });
    expect(JSON.parse(backfillRow(data, "bf").cursor ?? "{}")).toMatchObject({
      url: older,
      unansweredNights: 4,
    });
    const going = await runMain(["site", host, "--data", data]);
    expect(going.stdout).toContain(
      `${host}: source bf: older pages: reading a few a night, 0 older pages read; next ${older}: it got no answer 4 nights running (given up at ${BACKFILL_UNANSWERED_NIGHTS})`,
    );

    // The nights between, as if run; the last one gives up.
    setUnanswered(data, "bf", BACKFILL_UNANSWERED_NIGHTS - 1);
    await nightOn(catalog, data, "2026-11-24");
    expect(site.hits("/bf-older")).toHaveLength(15);
    expect(outcomesOn(data, "2026-11-24")["bf"]?.outcome).toBe("ok");
    expect(backfillRow(data, "bf").done).toBe(1);

    const text = await runMain(["site", host, "--data", data]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `${host}: source bf: older pages: given up on the night of 2026-11-24, 0 older pages read: the older page ${older} failed, no answer ${BACKFILL_UNANSWERED_NIGHTS} nights running (last: error, HTTP 500 (retries-exhausted)); \`nor backfill restart bf\` asks it again`,
    );
    const json = await runMain(["site", host, "--data", data, "--json"]);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        site: host,
        kind: "backfill",
        source: "bf",
        state: "given-up",
        why: "gave-up",
        night: "2026-11-24",
        url: older,
      }),
    );
    const table = await runMain(["status", "--data", data]);
    expect(table.stdout).toContain(
      `\nbf: older pages: given up on the night of 2026-11-24, 0 older pages read: the older page ${older} failed`,
    );
    const status = await runMain(["status", "--data", data, "--json"]);
    const row = (JSON.parse(status.stdout) as { id: string; backfill: unknown }[]).find(
      (r) => r.id === "bf",
    );
    expect(row?.backfill).toMatchObject({ state: "given-up", night: "2026-11-24", url: older });

    // P24, P7: a flag for a person, once.
    const flags = await runMain(["flags", "--data", data]);
    expect(flags.stdout).toContain(
      `backfill-gave-up\tbf\tits older pages gave up on ${older} (no answer ${BACKFILL_UNANSWERED_NIGHTS} nights running (last: error, HTTP 500 (retries-exhausted))); \`nor backfill restart bf\` asks it again`,
    );

    // Given up: not asked the next night, nor flagged again.
    await nightOn(catalog, data, "2026-11-25");
    expect(site.hits("/bf-older")).toHaveLength(15);
    const flagsAfter = await runMain(["flags", "--data", data, "--json"]);
    expect(
      (JSON.parse(flagsAfter.stdout) as { kind: string }[]).filter(
        (f) => f.kind === "backfill-gave-up",
      ),
    ).toHaveLength(1);

    // A person restarts it: the next night asks that page again (now mended), and reads on.
    const restart = await runMain(["backfill", "restart", "bf", "--data", data, "--by", "dana"]);
    expect(restart.code).toBe(0);
    expect(restart.stdout).toContain(`bf: older pages: it had given up on the night of 2026-11-24`);
    expect(restart.stdout).toContain(`from the next night it goes on from ${older}`);
    // P24: kept with who and when, and the flag that asked for it answered by the same person.
    expect(restart.stdout).toContain("its backfill-gave-up flag cleared");
    expect(
      (
        JSON.parse((await runMain(["flags", "--data", data, "--json"])).stdout) as {
          kind: string;
        }[]
      ).filter((f) => f.kind === "backfill-gave-up"),
    ).toHaveLength(0);
    const restarted = await runMain(["site", host, "--data", data]);
    expect(restarted.stdout).toMatch(
      /source bf: older pages: reading a few a night \(restarted by dana at 20\d\d-/,
    );
    const again = await runMain(["backfill", "restart", "bf", "--data", data]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("still read a few a night");
    mended = true;
    await nightOn(catalog, data, "2026-11-26");
    expect(site.hits("/bf-older")).toHaveLength(16);
    expect(backfillRow(data, "bf")).toMatchObject({ done: 1, pages_read: 1 });
    const done = await runMain(["site", host, "--data", data]);
    expect(done.stdout).toContain(
      `${host}: source bf: older pages: done on the night of 2026-11-26, 1 older page read, to the list's oldest page`,
    );
    const unknown = await runMain(["backfill", "restart", "nope", "--data", data]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown source "nope"');
  }, 120_000);
});

describe("P7: a retired source's backfill (tester-b 4)", () => {
  it("P7, P26: once an import retired the source, nor site and nor status --json say its older pages are not read (retired), not 'reading', as nor backfill restart does", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    const html = (res: import("node:http").ServerResponse, s: string) =>
      void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
    site.route("/rt", (_q, res) => html(res, list(["new"], "/rt-older")));
    // A 500 keeps the backfill going; Retry-After: 0, since this test is not about the retry
    // waits (the test above is): without it, each night waits P15's 5 s and 20 s before its retries.
    site.route(
      "/rt-older",
      (_q, res) => void res.writeHead(500, { "retry-after": "0" }).end("Server Error"),
    );
    site.route("/keep", (_q, res) => html(res, list(["k"])));
    const keep = `  - { id: keep, government: city-of-test, records: minutes, url: "${site.url("/keep")}", ${RECIPE} }`;
    const catalog = testerCatalog(world.dir, "retired", [
      `  - { id: rt, government: city-of-test, records: agendas, url: "${site.url("/rt")}", ${RECIPE} }`,
      keep,
    ]);
    const data = join(world.dir, "retired");
    await nightOn(catalog, data, "2026-11-20");
    const host = site.host;
    const before = await runMain(["site", host, "--data", data]);
    expect(before.stdout).toContain(`${host}: source rt: older pages: reading a few a night`);

    const without = testerCatalog(world.dir, "retired-2", [keep]);
    const imp = await runMain(["catalog", "import", without, "--data", data, "--allow-retire"]);
    expect(imp.code, imp.stderr).toBe(0);

    const text = await runMain(["site", host, "--data", data]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toContain("source rt: older pages: reading");
    expect(text.stdout).toMatch(/source rt: older pages: not read: the source is retired /);
    const json = await runMain(["site", host, "--data", data, "--json"]);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({ kind: "backfill", source: "rt", state: "retired" }),
    );
    const status = await runMain(["status", "--data", data, "--json"]);
    const row = (JSON.parse(status.stdout) as { id: string; backfill: unknown }[]).find(
      (r) => r.id === "rt",
    );
    expect(row?.backfill).toMatchObject({ state: "retired" });
  });
});
