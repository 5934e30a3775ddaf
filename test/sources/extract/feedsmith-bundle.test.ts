import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { extractFeed } from "../../../src/sources/extract/feed.js";
import { ROOT } from "../../cli/run-nor.js";
import { platformXmlFixtures } from "./xml-fixtures.js";

/**
 * `npm run build` bundles what the feed reader takes from feedsmith into dist/vendor/feedsmith.js
 * (scripts/bundle-vendor.mjs), and the built reader loads it (src/sources/extract/feedsmith.ts).
 * The bundle must read every feed as the package does, and parse with node_modules'
 * fast-xml-parser: feed-stop-nodes.ts patches that one's XMLParser, and a copy of it inside the
 * bundle would silently go without the patch. dist/ is built once by test/global-build.ts.
 */
async function builtReader(): Promise<typeof import("../../../src/sources/extract/feed.js")> {
  return import(pathToFileURL(join(ROOT, "dist", "sources", "extract", "feed.js")).href);
}

describe("the feed reader with feedsmith bundled (dist/vendor/feedsmith.js)", () => {
  it("the build bundles it, and the bundle leaves fast-xml-parser and entities outside", () => {
    const bundle = join(ROOT, "dist", "vendor", "feedsmith.js");
    expect(existsSync(bundle)).toBe(true);
    const text = readFileSync(bundle, "utf8");
    expect(text).toMatch(/^import \{[^}]*\bXMLParser\b[^}]*\} from "fast-xml-parser";$/m);
    expect(text).toMatch(/ from "entities";$/m);
    expect(text).not.toMatch(/class XMLParser\b/);
  });

  it("parses with node_modules' fast-xml-parser, the one feed-stop-nodes.ts patches", async () => {
    const { extractFeed: built } = await builtReader();
    const parse = XMLParser.prototype.parse;
    let calls = 0;
    XMLParser.prototype.parse = function (this: XMLParser, ...args: Parameters<typeof parse>) {
      calls++;
      return parse.apply(this, args);
    } as typeof parse;
    try {
      const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://g.gov/</link><item><title>Agenda</title><link>https://g.gov/a/1</link></item></channel></rss>`;
      const got = built(new TextEncoder().encode(rss), "https://g.gov/feed.rss");
      expect(got.records.map((r) => r.title)).toEqual(["Agenda"]);
      expect(calls).toBeGreaterThan(0);
    } finally {
      XMLParser.prototype.parse = parse;
    }
  });

  it("reads every XML fixture, and answers that are not feeds or are cut, exactly as the package does", async () => {
    const { extractFeed: built } = await builtReader();
    const enc = (name: string, text: string) => ({ name, body: new TextEncoder().encode(text) });
    const all = [
      ...platformXmlFixtures(),
      // feed.ts's error branches: feedsmith's DetectError and MalformedError (by name), and
      // whatever else it throws, must come out of the bundle as they come out of the package.
      enc(
        "cut RSS",
        `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>A`,
      ),
      enc("cut Atom", `<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><title>A`),
      enc("empty Atom", `<feed xmlns="http://www.w3.org/2005/Atom"></feed>`),
      enc("XML, not a feed", `<?xml version="1.0"?><note><to>A</to></note>`),
      enc("JSON, not a feed", `{"a":1}`),
      enc(
        "JSON Feed",
        `{"version":"https://jsonfeed.org/version/1.1","title":"T","items":[{"id":"1","title":"A","url":"https://g.gov/a"}]}`,
      ),
      enc(
        "RDF",
        `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel rdf:about="https://g.gov/"><title>T</title><link>https://g.gov/</link></channel><item rdf:about="https://g.gov/a"><title>A</title><link>https://g.gov/a</link></item></rdf:RDF>`,
      ),
      enc("an HTML page", `<!doctype html><html><body><p>Not found</p></body></html>`),
    ];
    expect(all.length).toBeGreaterThan(12);
    for (const f of all) {
      const url = `https://fixtures.example/${f.name}`;
      const outcome = (fn: typeof extractFeed) => {
        try {
          return { ok: fn(f.body, url) };
        } catch (err) {
          return { threw: (err as Error).message };
        }
      };
      expect(outcome(built), f.name).toEqual(outcome(extractFeed));
    }
  });
});
