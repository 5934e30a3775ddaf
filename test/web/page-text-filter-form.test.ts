import { type CheerioAPI, load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * The filter form on /new keeps what the page was showing: its window or night, and its
 * government or source, as hidden fields (never sent empty), so choosing a kind of records and
 * pressing Show narrows the same list instead of starting again from "since yesterday".
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

async function html(path: string, status = 200): Promise<CheerioAPI> {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(status);
  return load(await res.text());
}

/**
 * The address a browser goes to when the form is sent with `choose` selected (HTML's form
 * submission for a GET form of hidden inputs and selects, in document order).
 */
function submit($: CheerioAPI, form: string, choose: Record<string, string>): string {
  const f = $(form);
  expect(f.length, form).toBe(1);
  expect((f.attr("method") ?? "get").toLowerCase()).toBe("get");
  const p = new URLSearchParams();
  for (const el of f.find("input[name], select[name]").toArray()) {
    const name = $(el).attr("name") ?? "";
    if (el.tagName === "select") {
      const options = $(el).find("option");
      for (const o of options.toArray()) {
        expect($(o).attr("value"), `option of ${name}`).toBeDefined();
      }
      const values = options.map((_i, o) => $(o).attr("value")).get();
      if (name in choose) {
        expect(values, name).toContain(choose[name]);
        p.append(name, choose[name] ?? "");
      } else {
        const selected = $(el).find("option[selected]");
        p.append(name, (selected.length ? selected : options.first()).attr("value") ?? "");
      }
    } else {
      p.append(name, $(el).attr("value") ?? "");
    }
  }
  return `${f.attr("action")}?${p.toString()}`;
}

const hidden = ($: CheerioAPI) =>
  $("form.filter input[type=hidden]")
    .map((_i, el) => `${$(el).attr("name")}=${$(el).attr("value")}`)
    .get();

describe("the filter form on /new keeps the page's window, night, government and source", () => {
  it("a window: /new?window=30d, choosing Records=bids, stays in the last 30 days", async () => {
    const $ = await html("/new?window=30d");
    expect(hidden($)).toEqual(["window=30d"]);
    const to = submit($, "form.filter", { records: "bids" });
    expect(to).toBe("/new?window=30d&county=&kind=&records=bids");
    const next = await html(to);
    expect(next("h1").text()).toBe("New on record in the last 30 days: bids");
    expect(next("form.filter select[name=records] option[selected]").attr("value")).toBe("bids");
    // Said as every page says a kind of records: capitalised.
    expect(next("form.filter select[name=records] option[selected]").text()).toBe("Bids");
    // And the form there keeps the window again.
    expect(hidden(next)).toEqual(["window=30d"]);
  });

  it("a night: /new?night=2026-11-04, choosing Records=agendas, stays on that night", async () => {
    const $ = await html("/new?night=2026-11-04");
    expect(hidden($)).toEqual(["night=2026-11-04"]);
    const to = submit($, "form.filter", { records: "agendas" });
    const next = await html(to);
    expect(new URL(to, "http://x").searchParams.get("night")).toBe("2026-11-04");
    expect(next("h1").text()).toBe("New on record on the night of Nov 4: agendas");
  });

  it("a source and a window: /new?source=test-bids&window=7d keeps both", async () => {
    const $ = await html("/new?source=test-bids&window=7d");
    expect(hidden($).sort()).toEqual(["source=test-bids", "window=7d"]);
    const to = submit($, "form.filter", { records: "bids" });
    const q = new URL(to, "http://x").searchParams;
    expect(q.get("source")).toBe("test-bids");
    expect(q.get("window")).toBe("7d");
    const next = await html(to);
    expect(next("h1").text()).toBe(
      "New on record in the last 7 days: bids of Village of Test, bids",
    );
  });

  it("a government: /new?government=village-of-test keeps it (and the default window adds nothing)", async () => {
    const $ = await html("/new?government=village-of-test");
    expect(hidden($)).toEqual(["government=village-of-test"]);
    const to = submit($, "form.filter", { county: "Franklin" });
    expect(to).toBe("/new?government=village-of-test&county=Franklin&kind=&records=");
    const next = await html(to);
    expect(next("h1").text()).toBe(
      "New on record since yesterday: Village of Test, Franklin County",
    );
  });

  it("nothing is kept that the page did not have, and nothing is sent empty: /new and /new?window=&government=", async () => {
    expect(hidden(await html("/new"))).toEqual([]);
    const $ = await html("/new?window=&government=&source=");
    expect(hidden($)).toEqual([]);
    expect($("form.filter input[type=hidden][value='']").length).toBe(0);
    // The fields the form shows are not sent twice.
    const shown = await html("/new?county=Franklin&kind=village&records=bids&window=7d");
    expect(hidden(shown)).toEqual(["window=7d"]);
  });

  it("/governments has the same form with nothing else to keep: it reads only county and kind", async () => {
    const $ = await html("/governments?kind=village");
    expect(hidden($)).toEqual([]);
    const to = submit($, "form.filter", { county: "Franklin" });
    expect(to).toBe("/governments?county=Franklin&kind=village");
    expect((await html(to))("h1").text()).toBe("Governments: Franklin County, village governments");
  });

  it("the home page has no filter form; search's keeps its words and its government or source", async () => {
    expect((await html("/"))("form.filter").length).toBe(0);
    expect((await html("/search"))("form.filter").length).toBe(0);
    const $ = await html("/search?q=record&government=village-of-test");
    expect($("form.search-big input#q").attr("value")).toBe("record");
    expect(hidden($)).toEqual(["q=record", "government=village-of-test"]);
    const to = submit($, "form.filter", { records: "agendas" });
    expect(to).toBe("/search?q=record&government=village-of-test&county=&kind=&records=agendas");
    const next = await html(to);
    expect(next(".search-scope").text()).toContain("Only in: Village of Test, agendas");
    expect(next("form.filter select[name=records] option[selected]").attr("value")).toBe("agendas");
    expect(hidden(next)).toEqual(["q=record", "government=village-of-test"]);
  });
});
