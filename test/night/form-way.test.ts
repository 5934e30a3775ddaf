import { afterEach, describe, expect, it } from "vitest";
import { openFormWay } from "../../src/night/form-way.js";
import type { StoredCopy, ValidatorStore } from "../../src/night/reader.js";
import type { WayIn } from "../../src/sources/catalog/types.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots } from "../fleet/routes.js";

/**
 * P12 + P8 for the form page, as the server sees it: the night's form opening over the real
 * fetcher against a loopback site, with the validator store as the night's port.
 */
let h: Harness;
afterEach(async () => h?.close());

const ETAG = '"form-v1"';
const FORM = `<form method="post" action="./Search.aspx"><input type="hidden" name="__VIEWSTATE" value="VS-NOW" /><input type="text" name="q" value="" /><input type="submit" name="go" value="Search" /></form>`;
const STORED = FORM.replace("VS-NOW", "VS-STORED");

async function site() {
  h = await harness();
  const s = await h.fleet.server();
  s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
  s.route("/Search.aspx", (req, res) => {
    if (req.headers["if-none-match"] === ETAG) return void res.writeHead(304, { etag: ETAG }).end();
    res.writeHead(200, { "content-type": "text/html", etag: ETAG }).end(FORM);
  });
  const way: WayIn = {
    access: "form",
    url: s.url("/Search.aspx"),
    form: { fields: { q: "minutes" }, submit: "go" },
  };
  return { s, way };
}

function store(copy: StoredCopy | { lost: string } | undefined, keepsCopies = true) {
  const asked: string[] = [];
  const v: ValidatorStore = {
    get: async (url) => {
      asked.push(url);
      return { etag: ETAG };
    },
  };
  if (keepsCopies) v.storedCopy = async () => copy;
  return { v, asked };
}

const viewstate = (body: string | Uint8Array | undefined) =>
  new URLSearchParams(typeof body === "string" ? body : new TextDecoder().decode(body)).get(
    "__VIEWSTATE",
  );

describe("the form page is asked for conditionally (P12)", () => {
  it("P12, P8: the form page carries its stored ETag; a 304 is filled in from the stored copy", async () => {
    const { s, way } = await site();
    const { v, asked } = store({ url: way.url, body: new TextEncoder().encode(STORED) });
    const opened = await openFormWay({ fetcher: h.fetcher(), validators: v }, way, "s", 0);
    expect(asked).toContain(way.url);
    expect(s.hits("/Search.aspx").map((r) => r.headers["if-none-match"])).toEqual([ETAG]);
    expect(opened.kind).toBe("request");
    if (opened.kind === "request") expect(viewstate(opened.req.body)).toBe("VS-STORED");
  });

  it.each([
    ["lost on disk", { lost: "archive/x.warc.gz@0: gone" }],
    ["not held", undefined],
  ] as const)(
    "P12, P8: a 304 whose copy is %s asks once more in full and fills the form from that answer",
    async (_name, copy) => {
      const { s, way } = await site();
      const { v } = store(copy);
      const opened = await openFormWay({ fetcher: h.fetcher(), validators: v }, way, "s", 0);
      expect(s.hits("/Search.aspx").map((r) => r.headers["if-none-match"] ?? null)).toEqual([
        ETAG,
        null,
      ]);
      expect(opened.kind).toBe("request");
      if (opened.kind === "request") expect(viewstate(opened.req.body)).toBe("VS-NOW");
    },
  );

  it("P12: a store that keeps no copies sends no validators for the form page (a 304 could not be filled in)", async () => {
    const { s, way } = await site();
    const { v } = store(undefined, false);
    const opened = await openFormWay({ fetcher: h.fetcher(), validators: v }, way, "s", 0);
    expect(s.hits("/Search.aspx").map((r) => r.headers["if-none-match"] ?? null)).toEqual([null]);
    expect(opened.kind).toBe("request");
  });
});
