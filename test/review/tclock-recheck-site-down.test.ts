import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { writeVillageCatalog } from "../cli/catalogs.js";
import { nor } from "../cli/cli-capture.js";

/**
 * Outside tester (tclock), the recheck calendar from a site owner's side: a source marked not
 * read is rechecked on nights 1–3 after its marking, then weekly (night 10, 17, …). Its site is
 * down for maintenance on night 10 (another page there answers 503 after its retries), so the
 * recheck is not asked that night: "its sources not yet asked are recorded not reached … and go
 * first the next night" (docs/promises.md P15), "One the time limit kept from being reached
 * goes first the next night, as every source not reached does" (P25). A real loopback site
 * watches which nights ask the rechecked page.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-tclock-recheck-down-"));
let down = false;
const asked: { night: number; path: string }[] = [];
let current = -1;
const server = createServer((req, res) => {
  const path = req.url ?? "";
  asked.push({ night: current, path });
  if (path === "/robots.txt") return void res.writeHead(404).end();
  if (down && path === "/read.rss")
    return void res.writeHead(503, { "retry-after": "0" }).end("down for maintenance");
  res
    .writeHead(200, { "content-type": "application/rss+xml" })
    .end(
      `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>Agenda ${path}</title><link>http://127.0.0.1${path}#1</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>`,
    );
});
let catalog = "";

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  catalog = writeVillageCatalog(join(dir, "c.yaml"), "Recheck", {
    "recheck-read": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/read.rss"`,
    "recheck-marked": `records: minutes, access: feed, url: "http://127.0.0.1:${port}/marked.rss"`,
  });
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe("tclock: a weekly recheck its site's outage kept from being asked", () => {
  it("P25, P13, P15: the recheck not reached on night 10 (its site down) is asked the next night, not a week later", async () => {
    const data = join(dir, "data");
    const tonight = nightOf(Date.now());
    const n0 = addDays(tonight, -12);
    const run = async (k: number) => {
      current = k;
      const r = await nor(
        "night",
        ...["--catalog", catalog, "--data", data, "--night", addDays(n0, k)],
        ...["--allow-private-addresses", "--gap-ms", "0"],
      );
      expect(r.code, r.stderr).toBe(0);
    };
    const markedAsks = (k: number) =>
      asked.filter((a) => a.night === k && a.path === "/marked.rss").length;
    await run(0);
    const mark = await nor(
      "mark",
      "recheck-marked",
      ...["--not-read", "--reason", "its owner asked us by e-mail", "--by", "tclock"],
      ...["--night", n0, "--data", data],
    );
    expect(mark.code, mark.stderr).toBe(0);
    for (let k = 1; k <= 9; k++) {
      await run(k);
      expect(markedAsks(k), `night ${k}`).toBe(isRecheckNight(n0, addDays(n0, k)) ? 1 : 0);
    }
    // Night 10, the weekly recheck: the site is down (the page read there answers 503 three
    // times), so the recheck, which comes after it, is not asked.
    expect(isRecheckNight(n0, addDays(n0, 10))).toBe(true);
    down = true;
    await run(10);
    down = false;
    expect(asked.filter((a) => a.night === 10 && a.path === "/read.rss").length).toBe(3);
    expect(markedAsks(10)).toBe(0);
    // Night 11: the site is back; the recheck owed goes first.
    await run(11);
    expect(markedAsks(11), "the recheck owed since night 10 is asked on night 11").toBe(1);
  });
});
