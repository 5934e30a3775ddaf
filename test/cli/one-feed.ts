import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** An RSS feed of one agenda, the same every night. */
export const ONE_AGENDA_RSS =
  '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>Agenda</title><link>http://127.0.0.1/a</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>';

/**
 * A loopback site on port 0 answering every path with ONE_AGENDA_RSS and robots.txt with 404;
 * `asked` is each request's path, in order.
 */
export async function oneFeedSite(): Promise<{
  port: number;
  feed: string;
  asked: string[];
  close: () => Promise<void>;
}> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? "");
    if (req.url === "/robots.txt") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/rss+xml" }).end(ONE_AGENDA_RSS);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    feed: `http://127.0.0.1:${port}/feed.rss`,
    asked,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
