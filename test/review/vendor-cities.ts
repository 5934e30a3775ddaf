/**
 * The setup the tdurable vendor tests share: governments' sites whose feeds all redirect to
 * one vendor's host, and the `nor night --workers 3` those tests run over them.
 */
import type { Fleet, FleetServer } from "../fleet/fleet.js";
import { feedEntry, rss } from "../night/cli-night.js";

/**
 * `n` cities, each a server of its own with no robots.txt (404), whose /agendas.xml redirects
 * (301) to `vendor`'s /feed/<i>.xml (the vendor's routes are the caller's). Returns their
 * catalog entries, city-0 to city-<n-1>.
 */
export async function citiesToVendor(
  fleet: Fleet,
  vendor: FleetServer,
  n: number,
): Promise<string[][]> {
  const sources: string[][] = [];
  for (let i = 0; i < n; i++) {
    const city = await fleet.server();
    city.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    city.route(
      "/agendas.xml",
      (_q, res) => void res.writeHead(301, { location: vendor.url(`/feed/${i}.xml`) }).end(),
    );
    sources.push(feedEntry(`city-${i}`, city.url("/agendas.xml")));
  }
  return sources;
}

/** `nor night` of 2026-11-05 over `catalog` into `dir`: three workers, one lane each, 50 ms gap. */
export function workersNightArgs(catalog: string, dir: string): string[] {
  return [
    ...["night", "--catalog", catalog, "--data", dir, "--night", "2026-11-05"],
    ...["--workers", "3", "--concurrency", "1", "--allow-private-addresses"],
    ...["--gap-ms", "50"],
  ];
}

/** `vendor`'s /feed/0.xml to /feed/<n-1>.xml, each an RSS feed of one item of its own (v<i>). */
export function vendorFeeds(vendor: FleetServer, n: number): void {
  for (let i = 0; i < n; i++)
    vendor.route(
      `/feed/${i}.xml`,
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(vendor.origin, 1, `v${i}`)),
    );
}
