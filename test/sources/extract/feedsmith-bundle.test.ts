import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { extractFeed } from "../../../src/sources/extract/feed.js";
import { ROOT } from "../../cli/run-nor.js";

/**
 * `npm run build` bundles what the feed reader takes from feedsmith into dist/vendor/feedsmith.js
 * (scripts/bundle-vendor.mjs), and the built reader loads it (src/sources/extract/feedsmith.ts).
 * The bundle must read every feed as the package does, and parse with node_modules'
 * fast-xml-parser: feed-stop-nodes.ts patches that one's XMLParser, and a copy of it inside the
 * bundle would silently go without the patch. dist/ is built once by test/global-build.ts.
 */
const fixtures = new URL("../../fixtures/platforms/", import.meta.url);

function xmlFixtures(): { name: string; body: Uint8Array }[] {
  const out: { name: string; body: Uint8Array }[] = [];
  for (const dir of readdirSync(fixtures)) {
    let names: string[];
    try {
      names = readdirSync(new URL(`${dir}/`, fixtures));
    } catch {
      continue;
    }
    for (const name of names)
      if (name.endsWith(".xml"))
        out.push({
          name: `${dir}/${name}`,
          body: readFileSync(new URL(`${dir}/${name}`, fixtures)),
        });
  }
  return out;
}

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

  it("reads every XML fixture exactly as the package does", async () => {
    const { extractFeed: built } = await builtReader();
    const all = xmlFixtures();
    expect(all.length).toBeGreaterThan(5);
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
