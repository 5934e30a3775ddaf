import { describe, expect, it } from "vitest";
import { loadWayReader } from "../../src/night/lazy-reader.js";
import type { WayIn } from "../../src/sources/catalog/types.js";

/** Whatever a reader makes of an empty body, it must be there to make it (never "not loaded"). */
function readerOf(f: () => unknown): string {
  try {
    f();
    return "read";
  } catch (err) {
    const m = err instanceof Error ? err.message : String(err);
    return /no \w+ reader loaded/.test(m) ? m : "read";
  }
}

const source = (way: WayIn, alternates: WayIn[] = []) => ({ ...way, alternates });

describe("a night's readers, loaded for the ways its catalog names", () => {
  it("P4, P5: every way of the catalog, alternates included, finds its reader: feed, page, form, api, download, preset", async () => {
    const ways: WayIn[] = [
      { access: "feed", url: "https://a.example.gov/rss" },
      { access: "page", url: "https://b.example.gov/list", extract: { items: "li" } as never },
      { access: "form", url: "https://c.example.gov/search", form: {} },
      { access: "api", url: "https://d.example.gov/api", api: {} },
      { access: "download", url: "https://e.example.gov/x.csv", download: {} },
      {
        access: "page",
        url: "https://f.example.gov/AgendaCenter",
        platform: "civicplus-agendacenter",
      },
    ];
    const [first, ...rest] = ways;
    const reader = await loadWayReader([source(first as WayIn, rest)]);
    const body = new TextEncoder().encode("");
    for (const way of ways) {
      await reader.ready?.(way);
      expect(
        readerOf(() => reader.extract(way, body, way.url, "text/html")),
        way.url,
      ).toBe("read");
    }
    const form = ways[2] as WayIn;
    expect(
      readerOf(() =>
        reader.nextRequest(form, { url: form.url }, body, { records: [] } as never, "text/html"),
      ),
    ).toBe("read");
  });

  it("a generic reader is loaded when an answer of its way is first to be read, not at the night's start (a night of 304s loads none)", async () => {
    const feed: WayIn = { access: "feed", url: "https://a.example.gov/rss" };
    const page: WayIn = { access: "page", url: "https://b.example.gov/list", extract: {} as never };
    const reader = await loadWayReader([source(feed, [page])]);
    const body = new Uint8Array();
    expect(readerOf(() => reader.extract(feed, body, feed.url))).toMatch(/no feed reader loaded/);
    expect(readerOf(() => reader.extract(page, body, page.url))).toMatch(/no page reader loaded/);
    // Asked by several lanes at once: one load, and each way finds its reader after it.
    await Promise.all([reader.ready?.(feed), reader.ready?.(feed)]);
    expect(readerOf(() => reader.extract(feed, body, feed.url))).toBe("read");
    expect(readerOf(() => reader.extract(page, body, page.url))).toMatch(/no page reader loaded/);
    await reader.ready?.(page);
    expect(readerOf(() => reader.extract(page, body, page.url))).toBe("read");
  });
});
