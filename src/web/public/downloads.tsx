/**
 * Bulk downloads of the directory and of the records, as CSV (RFC 4180) and JSON. Records are
 * streamed page by page in key order (keyset paging), so 100,000 records never sit in memory.
 * CSV cells that a spreadsheet would run as a formula (= + - @ at the start) are prefixed with
 * an apostrophe (OWASP "CSV injection"): a title from a crawled page is never a formula.
 *
 * Each file's ETag is made before a row is read, from what its bytes are made of
 * (src/store/read/versions.ts): the catalog's latest change for every file, and for the records
 * also the nights as they ran and the records of the nights still under way. It changes whenever
 * the bytes could, and a client's If-None-Match that still names it is a 304 without reading the
 * file at all.
 */
import { createHash } from "node:crypto";
import type { Context, Hono } from "hono";
import type { Db } from "../../store/db.js";
import { allSources, listGovernments, recordsAfter } from "../../store/read/directory.js";
import { catalogVersion, recordsVersion, statusVersion } from "../../store/read/versions.js";
import { Layout } from "../layout.js";
import { namesTag } from "../manners.js";
import { governmentJson, httpUrl, sourceJson, statusJson } from "./api.js";
import { ALL_FILTERS, type Filter, filterQuery, pageReads, reads } from "./filters.js";
import { badRequestPage } from "./pages/errors.js";
import { type Retired, retiredPage, retiredText } from "./retired.js";
import type { Checked } from "./routes.js";
import { type ReadStatus, readStatuses } from "./state.js";

const PAGE_ROWS = 2_000;

export function csvCell(v: string | number | null): string {
  if (v === null) return "";
  let s = String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const csvLine = (cells: (string | number | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;

const RECORD_HEADER = [
  "source_id",
  "record_id",
  "title",
  "date",
  "url",
  "kind",
  "records",
  "government_id",
  "county",
  "first_seen_night",
  "first_seen_at",
  "already_listed",
];

/**
 * The files' layout: raised whenever the code changes what a file holds for the same rows (a
 * column, a field, how a text is shown, which records a filter selects), so a client's copy from
 * before is not taken as current. 3: `records=` reads each record's kind as shown (an Agenda
 * Center's minutes are in `records.csv?records=minutes`). 4: the record pages' files say each
 * page's read status (P26).
 */
const LAYOUT = 4;

/** A weak ETag of a file's name and what its bytes are made of (hashed: any text, any length). */
export function downloadTag(file: string, parts: readonly (string | number)[]): string {
  const h = createHash("sha256")
    .update(JSON.stringify([LAYOUT, file, ...parts]))
    .digest("base64url")
    .slice(0, 27);
  return `W/"${file}-${h}"`;
}

export interface DownloadDeps {
  /**
   * The routes' own filter check (src/web/public/routes.tsx): the same 400s as /new, and what
   * the filter names that left the catalog.
   */
  filterOf: (c: Context) => Promise<Checked<{ filter: Filter; retired: Retired | undefined }>>;
  /** The configured public origin: the retired page's link. */
  origin: () => string;
  /** The app's clock (a way's first request may name the day: the pages' read status). */
  now: () => number;
}

export function downloadRoutes(app: Hono, db: Db, deps: DownloadDeps): void {
  const attach = (c: Context, name: string) =>
    c.header("Content-Disposition", `attachment; filename="${name}"`);
  const asText = (c: Context, message: string) => c.text(message, 400);
  /**
   * The file's ETag on the answer; a 304 when the client already holds it (nothing more is read),
   * else undefined: the route goes on and writes the file.
   */
  const unchanged = (c: Context, tag: string): Response | undefined => {
    c.header("ETag", tag);
    if (!namesTag(c.req.header("If-None-Match"), tag)) return undefined;
    return c.body(null, 304);
  };
  const catalogTag = async (file: string) => downloadTag(file, [await catalogVersion(db)]);
  /**
   * The record pages' files: the catalog, and each page's read status (P26), which a person's
   * mark or a site owner's request changes between imports.
   */
  const sourcesTag = async (file: string) => {
    const [catalog, status] = await Promise.all([catalogVersion(db), statusVersion(db)]);
    return downloadTag(file, [catalog, JSON.stringify(status)]);
  };
  /** The record pages in use, each with its read status as every page and the API say it. */
  const sourcesWithStatus = async () => {
    const rows = await allSources(db);
    const statuses = await readStatuses(db, rows, deps.now(), true);
    return rows.map((s) => ({
      source: s,
      status: statusJson(statuses.get(s.id) ?? ({ reading: true } satisfies ReadStatus)),
    }));
  };

  const asPage = (c: Context, message: string) => badRequestPage(c, message, "/downloads");

  app.get("/downloads", pageReads([], asPage), (c) =>
    c.html(
      <Layout title="Downloads and API">
        <h1>Downloads and API</h1>
        <ul>
          <li>
            Governments: <a href="/downloads/governments.csv">CSV</a> ·{" "}
            <a href="/downloads/governments.json">JSON</a>
          </li>
          <li>
            Record pages, each with whether it is read and, if not, why:{" "}
            <a href="/downloads/sources.csv">CSV</a> · <a href="/downloads/sources.json">JSON</a>
          </li>
          <li>
            Records noted (add <code>?county=</code>, <code>?records=</code>,{" "}
            <code>?government=</code> or <code>?source=</code> to narrow):{" "}
            <a href="/downloads/records.csv">CSV</a> · <a href="/downloads/records.json">JSON</a>
          </li>
          <li>
            The JSON API, described by OpenAPI 3.1:{" "}
            <a href="/api/openapi.json">/api/openapi.json</a>
          </li>
        </ul>
      </Layout>,
    ),
  );

  app.get("/downloads/governments.csv", reads([], asText), async (c) => {
    const kept = unchanged(c, await catalogTag("governments.csv"));
    if (kept) return kept;
    const rows = await listGovernments(db, {});
    attach(c, "governments.csv");
    const body =
      csvLine(["id", "name", "kind", "county", "website", "sources"]) +
      rows
        .map((g) => csvLine([g.id, g.name, g.kind, g.county, httpUrl(g.website), g.sources]))
        .join("");
    return c.body(body, 200, { "content-type": "text/csv; charset=utf-8; header=present" });
  });
  app.get("/downloads/governments.json", reads([], asText), async (c) => {
    const kept = unchanged(c, await catalogTag("governments.json"));
    if (kept) return kept;
    attach(c, "governments.json");
    return c.json({ governments: (await listGovernments(db, {})).map(governmentJson) });
  });
  app.get("/downloads/sources.csv", reads([], asText), async (c) => {
    const kept = unchanged(c, await sourcesTag("sources.csv"));
    if (kept) return kept;
    const rows = await sourcesWithStatus();
    attach(c, "sources.csv");
    // The status after the columns the file had, so their places do not move (P26): the API's
    // Status, `reading`, `reason` and `since`, each empty where the API says null.
    const body =
      csvLine([
        "id",
        "government_id",
        "name",
        "records",
        "url",
        "access",
        "platform",
        "status_reading",
        "status_reason",
        "status_since",
      ]) +
      rows
        .map(({ source: s, status }) =>
          csvLine([
            s.id,
            s.governmentId,
            s.name,
            s.records,
            httpUrl(s.url),
            s.access,
            s.platform,
            status.reading ? "true" : "false",
            status.reason,
            status.since,
          ]),
        )
        .join("");
    return c.body(body, 200, { "content-type": "text/csv; charset=utf-8; header=present" });
  });
  app.get("/downloads/sources.json", reads([], asText), async (c) => {
    const kept = unchanged(c, await sourcesTag("sources.json"));
    if (kept) return kept;
    attach(c, "sources.json");
    return c.json({
      sources: (await sourcesWithStatus()).map(({ source, status }) => ({
        ...sourceJson(source),
        status,
      })),
    });
  });

  for (const format of ["csv", "json"] as const) {
    app.get(`/downloads/records.${format}`, reads(ALL_FILTERS, asText), async (c) => {
      const r = await deps.filterOf(c);
      if (!r.ok) return c.text(r.message, 400);
      const f = r.value.filter;
      const retired = r.value.retired;
      if (retired) {
        // The files hold the current catalog: an empty file would say the page had no records.
        // 410 (Gone): this file no longer holds them; the page the text names keeps them.
        const link = `${deps.origin()}${retiredPage(retired)}`;
        return c.text(`${retiredText(retired, link, "in this file")}\n`, 410);
      }
      const [catalog, records] = await Promise.all([catalogVersion(db), recordsVersion(db)]);
      const kept = unchanged(
        c,
        downloadTag(`records.${format}`, [filterQuery(f), catalog, JSON.stringify(records)]),
      );
      if (kept) return kept;
      attach(c, `records.${format}`);
      const enc = new TextEncoder();
      let after: { sourceId: string; recordId: string } | undefined;
      let first = true;
      let done = false;
      // The first page is read before the answer begins: a store found damaged there is
      // answered 503 and said to the operator (app.tsx onError), never a 200 that breaks off.
      let firstRows: Awaited<ReturnType<typeof recordsAfter>> | undefined = await recordsAfter(
        db,
        undefined,
        f,
        PAGE_ROWS,
      );
      const stream = new ReadableStream<Uint8Array>({
        async pull(ctl) {
          if (done) return;
          if (first && format === "csv") ctl.enqueue(enc.encode(csvLine(RECORD_HEADER)));
          if (first && format === "json") ctl.enqueue(enc.encode('{"records":[\n'));
          const rows = firstRows ?? (await recordsAfter(db, after, f, PAGE_ROWS));
          firstRows = undefined;
          let text = "";
          for (const x of rows) {
            if (format === "csv") {
              text += csvLine([
                x.sourceId,
                x.recordId,
                x.title,
                x.date,
                httpUrl(x.url),
                x.kind,
                x.records,
                x.governmentId,
                x.county,
                x.firstSeenNight,
                x.firstSeenAt,
                x.alreadyListed ? "true" : "false",
              ]);
            } else {
              text += `${first ? "" : ",\n"}${JSON.stringify({
                sourceId: x.sourceId,
                recordId: x.recordId,
                title: x.title,
                date: x.date,
                url: httpUrl(x.url),
                kind: x.kind,
                records: x.records,
                governmentId: x.governmentId,
                county: x.county,
                firstSeenNight: x.firstSeenNight,
                firstSeenAt: x.firstSeenAt,
                alreadyListed: x.alreadyListed,
              })}`;
            }
            first = false;
          }
          first = false;
          const last = rows.at(-1);
          if (rows.length < PAGE_ROWS || !last) {
            done = true;
            if (format === "json") text += "\n]}\n";
            if (text) ctl.enqueue(enc.encode(text));
            ctl.close();
            return;
          }
          after = { sourceId: last.sourceId, recordId: last.recordId };
          ctl.enqueue(enc.encode(text));
        },
      });
      return c.body(stream, 200, {
        "content-type":
          format === "csv"
            ? "text/csv; charset=utf-8; header=present"
            : "application/json; charset=utf-8",
      });
    });
  }
}
