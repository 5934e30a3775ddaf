import { startFleet } from "../fleet/fleet.js";
import { nightCli, writeCatalog } from "../night/cli-night.js";

/** What a terminal obeys rather than shows: C0 controls but the line feed, DEL, C1 controls. */
export const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/**
 * One night in `dir` of one feed (enc-1) whose answer names `coding` as its Content-Encoding:
 * Node writes a header value's bytes 0x80-0xFF as they are (latin1), so a C1 control (0x9B,
 * the Control Sequence Introducer a terminal reads as ESC [) reaches the source's failure.
 */
export async function nightNamingCoding(
  dir: string,
  coding: string,
): Promise<Awaited<ReturnType<typeof nightCli>>> {
  const fleet = await startFleet();
  try {
    const site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/feed/1.xml", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml", "content-encoding": coding });
      res.end("<rss/>");
    });
    const catalog = writeCatalog(dir, [
      [
        "id: enc-1",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/feed/1.xml")}`,
      ],
    ]);
    return await nightCli(catalog, dir, "2026-11-05");
  } finally {
    await fleet.close();
  }
}
