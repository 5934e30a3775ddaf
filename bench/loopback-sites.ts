/**
 * The loopback sites of bench/loopback.ts, in a process of their own so that the engine's CPU
 * is the bench process's alone. `node loopback-sites.js SITES`: one HTTP server per site on
 * 127.0.0.2, 127.0.0.3, … (each an IP literal, so each its own site, P9), port 0. Every site
 * answers robots.txt with 404 (allow all) and /feed/N.rss with an RSS list of three items,
 * with an ETag and Last-Modified, and 304 to a matching If-None-Match (P12).
 * Site i listens on 127.0.K.(2 + i % 250) with K = floor(i / 250), so up to 62,500 sites are
 * each their own site (the whole of 127/8 is loopback on Linux).
 * Prints one JSON line `{"origins": [...]}` once all listen; answers the IPC message "count"
 * with the requests seen so far, "timings" with each site's requests as they were served
 * (`{"timings": [[arrival, end, arrival, end, …], …]}`, in site order, milliseconds of this
 * process's monotonic clock: arrival when the request's head was read, end when the last byte
 * of the response was handed to the kernel), and "reset" by forgetting them; "no-304" makes
 * every site answer in full whatever validators it is sent (the same body, the same ETag: a
 * site that ignores If-None-Match, as many do), "304" undoes it; exits when its parent
 * disconnects.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const SITES = Number(process.argv[2] ?? "200");
const LAST_MODIFIED = "Thu, 05 Nov 2026 08:00:00 GMT";
let requests = 0;
/** Whether a matching If-None-Match is answered 304 ("no-304" turns it off). */
let conditional = true;
/** Per site, arrival and end of each request served, in order (see "timings"). */
const timings: number[][] = [];

function rss(origin: string, n: string): string {
  const items = [1, 2, 3]
    .map(
      (i) =>
        `<item><title>Agenda ${n}.${i}</title><link>${origin}/agenda/${n}/${i}</link><guid>${origin}/agenda/${n}/${i}</guid><pubDate>Tue, 0${i} Nov 2026 18:00:00 GMT</pubDate></item>`,
    )
    .join("");
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Agendas ${n}</title><link>${origin}/</link><description>Council agendas</description>${items}</channel></rss>`;
}

/** The answer to one request (all of it written by `end`, at once). */
function answer(req: IncomingMessage, res: ServerResponse, origin: string): void {
  const path = req.url ?? "/";
  const m = /^\/feed\/(\d+)\.rss$/.exec(path);
  if (!m) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    return;
  }
  const etag = `"v1-${m[1]}"`;
  if (conditional && req.headers["if-none-match"] === etag) {
    res.writeHead(304, { etag, "last-modified": LAST_MODIFIED }).end();
    return;
  }
  res
    .writeHead(200, {
      "content-type": "application/rss+xml",
      etag,
      "last-modified": LAST_MODIFIED,
    })
    .end(rss(origin, m[1] as string));
}

async function listen(host: string, site: number): Promise<{ server: Server; origin: string }> {
  let origin = "";
  timings[site] = [];
  const server = createServer((req, res) => {
    // Epoch milliseconds (the checker's request log keeps Date.now()), to the microsecond.
    const arrival = performance.timeOrigin + performance.now();
    requests++;
    // The end: "finish", once the last byte is handed to the kernel (for these small answers
    // in the ticks right after this handler). Either time can only come late (this process
    // descheduled on a busy machine, a collection): a late arrival lengthens the gap as
    // measured, a late end shortens it.
    res.once("finish", () => {
      (timings[site] as number[]).push(arrival, performance.timeOrigin + performance.now());
    });
    answer(req, res, origin);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://${host}:${port}`;
  return { server, origin };
}

const servers = await Promise.all(
  Array.from({ length: SITES }, (_, i) =>
    listen(`127.0.${Math.floor(i / 250)}.${2 + (i % 250)}`, i),
  ),
);
process.on("message", (m) => {
  if (m === "count") process.send?.({ requests });
  else if (m === "timings") process.send?.({ timings });
  else if (m === "reset") for (let i = 0; i < timings.length; i++) timings[i] = [];
  else if (m === "no-304" || m === "304") {
    conditional = m === "304";
    process.send?.({ conditional });
  }
});
process.on("disconnect", () => {
  for (const s of servers) s.server.close();
  process.exit(0);
});
process.stdout.write(`${JSON.stringify({ origins: servers.map((s) => s.origin) })}\n`);
