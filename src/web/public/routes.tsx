/**
 * The public directory: pages, feeds and the JSON API, all read-only over the store.
 * P6: record links are shown, never fetched. P23: a night's no shows on the source's page.
 * P26: a page that is not read stays listed with its link and the reason.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import type { Db } from "../../store/db.js";
import { governmentDetailJson, governmentJson, newJson, sourceDetailJson } from "./api.js";
import { counties, directoryCounts, listGovernments } from "./data/directory.js";
import { newOnRecord } from "./data/new-records.js";
import { FEED_CONTENT_TYPES, type FeedFormat, renderFeed } from "./feeds.js";
import { type FilterKeys, type FilterResult, parseFilter } from "./filters.js";
import { loadGovernment, loadSource } from "./load.js";
import { MessagePage } from "./pages/errors.js";
import { GovernmentPage, GovernmentsPage } from "./pages/governments.js";
import { HomePage } from "./pages/home.js";
import { NewPage } from "./pages/new.js";
import { SourcePage } from "./pages/source.js";

/** Newest records on the front page. */
const HOME_NEWEST = 10;
const GOV_FILTERS: FilterKeys = ["county", "kind"];

export function publicRoutes(db: Db, opts: { now: () => number }): Hono {
  const app = new Hono();

  const filterOf = async (
    c: Context,
    keys?: FilterKeys,
  ): Promise<FilterResult & { counties: string[] }> => {
    const known = await counties(db);
    const r = parseFilter(
      { county: c.req.query("county"), kind: c.req.query("kind"), records: c.req.query("records") },
      known,
      keys,
    );
    return { ...r, counties: known };
  };

  const badRequest = (c: Context, message: string, back: string) =>
    c.html(
      <MessagePage
        title="That filter is not known"
        message={message}
        back={{ href: back, text: "Clear the filter" }}
      />,
      400,
    );

  const notFound = (c: Context, what: string) =>
    c.html(
      <MessagePage
        title="Not in the directory"
        message={`There is no ${what} with the id "${c.req.param("id") ?? ""}".`}
        back={{ href: "/governments", text: "All governments" }}
      />,
      404,
    );

  app.get("/", async (c) => {
    const [counts, latest, known] = await Promise.all([
      directoryCounts(db),
      newOnRecord(db, {}, HOME_NEWEST),
      counties(db),
    ]);
    return c.html(
      <HomePage counts={counts} latest={latest} shown={HOME_NEWEST} counties={known} />,
    );
  });

  app.get("/governments", async (c) => {
    const f = await filterOf(c, GOV_FILTERS);
    if (!f.ok) return badRequest(c, f.message, "/governments");
    const governments = await listGovernments(db, f.filter);
    return c.html(
      <GovernmentsPage governments={governments} filter={f.filter} counties={f.counties} />,
    );
  });

  app.get("/governments/:id", async (c) => {
    const r = await loadGovernment(db, c.req.param("id"));
    if (!r.found) return notFound(c, "government");
    return c.html(<GovernmentPage government={r.value.government} sources={r.value.sources} />);
  });

  app.get("/sources/:id", async (c) => {
    const r = await loadSource(db, c.req.param("id"));
    if (!r.found) return notFound(c, "record page");
    return c.html(<SourcePage d={r.value} />);
  });

  app.get("/new", async (c) => {
    const f = await filterOf(c);
    if (!f.ok) return badRequest(c, f.message, "/new");
    const data = await newOnRecord(db, f.filter);
    return c.html(<NewPage data={data} filter={f.filter} counties={f.counties} />);
  });

  for (const format of ["atom", "rss", "json"] as const satisfies readonly FeedFormat[]) {
    app.get(`/new.${format}`, async (c) => {
      const f = await filterOf(c);
      if (!f.ok) return c.text(f.message, 400);
      const data = await newOnRecord(db, f.filter);
      const body = renderFeed(format, {
        origin: new URL(c.req.url).origin,
        filter: f.filter,
        data,
        now: opts.now(),
      });
      return c.body(body, 200, { "content-type": FEED_CONTENT_TYPES[format] });
    });
  }

  // The JSON API: the same loaders as the pages (field names: docs/api.md).
  app.get("/api/governments", async (c) => {
    const f = await filterOf(c, GOV_FILTERS);
    if (!f.ok) return c.json({ error: f.message }, 400);
    const governments = await listGovernments(db, f.filter);
    return c.json({ governments: governments.map(governmentJson) });
  });

  app.get("/api/governments/:id", async (c) => {
    const r = await loadGovernment(db, c.req.param("id"));
    if (!r.found) return c.json({ error: `no government with the id "${c.req.param("id")}"` }, 404);
    return c.json(governmentDetailJson(r.value.government, r.value.sources));
  });

  app.get("/api/sources/:id", async (c) => {
    const r = await loadSource(db, c.req.param("id"));
    if (!r.found) return c.json({ error: `no source with the id "${c.req.param("id")}"` }, 404);
    return c.json(sourceDetailJson(r.value));
  });

  app.get("/api/new", async (c) => {
    const f = await filterOf(c);
    if (!f.ok) return c.json({ error: f.message }, 400);
    return c.json(newJson(await newOnRecord(db, f.filter), f.filter));
  });

  app.all("/api/*", (c) => c.json({ error: `no API route ${c.req.method} ${c.req.path}` }, 404));

  return app;
}
