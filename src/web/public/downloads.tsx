/**
 * Bulk downloads of the directory and of the records, as CSV (RFC 4180) and JSON. Records are
 * streamed page by page in key order (keyset paging), so 100,000 records never sit in memory.
 * CSV cells that a spreadsheet would run as a formula (= + - @ at the start) are prefixed with
 * an apostrophe (OWASP "CSV injection"): a title from a crawled page is never a formula.
 */
import type { Context, Hono } from "hono";
import type { Db } from "../../store/db.js";
import {
  allSources,
  type DirectoryFilter,
  listGovernments,
  recordsAfter,
} from "../../store/read/directory.js";
import { latestNight } from "../../store/read/new-records.js";
import { Layout } from "../layout.js";
import { governmentJson, httpUrl, sourceJson } from "./api.js";
import { parseFilter } from "./filters.js";

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
];

export function downloadRoutes(app: Hono, db: Db): void {
  /** Changes when a night ran or the catalog changed: lets a client skip an unchanged file. */
  const version = async (what: string) => {
    const n = await latestNight(db);
    const g = await listGovernments(db, {});
    return `W/"${what}-${n?.night ?? "none"}-${n?.finishedAt ?? n?.startedAt ?? ""}-${g.length}"`;
  };
  const attach = (c: Context, name: string) =>
    c.header("Content-Disposition", `attachment; filename="${name}"`);

  app.get("/downloads", (c) =>
    c.html(
      <Layout title="Downloads and API">
        <h1>Downloads and API</h1>
        <ul>
          <li>
            Governments: <a href="/downloads/governments.csv">CSV</a> ·{" "}
            <a href="/downloads/governments.json">JSON</a>
          </li>
          <li>
            Record pages: <a href="/downloads/sources.csv">CSV</a> ·{" "}
            <a href="/downloads/sources.json">JSON</a>
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

  app.get("/downloads/governments.csv", async (c) => {
    const rows = await listGovernments(db, {});
    attach(c, "governments.csv");
    c.header("ETag", await version("governments"));
    const body =
      csvLine(["id", "name", "kind", "county", "website", "sources"]) +
      rows
        .map((g) => csvLine([g.id, g.name, g.kind, g.county, httpUrl(g.website), g.sources]))
        .join("");
    return c.body(body, 200, { "content-type": "text/csv; charset=utf-8; header=present" });
  });
  app.get("/downloads/governments.json", async (c) => {
    attach(c, "governments.json");
    c.header("ETag", await version("governments-json"));
    return c.json({ governments: (await listGovernments(db, {})).map(governmentJson) });
  });
  app.get("/downloads/sources.csv", async (c) => {
    const rows = await allSources(db);
    attach(c, "sources.csv");
    c.header("ETag", await version("sources"));
    const body =
      csvLine(["id", "government_id", "name", "records", "url", "access", "platform"]) +
      rows
        .map((s) =>
          csvLine([s.id, s.governmentId, s.name, s.records, httpUrl(s.url), s.access, s.platform]),
        )
        .join("");
    return c.body(body, 200, { "content-type": "text/csv; charset=utf-8; header=present" });
  });
  app.get("/downloads/sources.json", async (c) => {
    attach(c, "sources.json");
    c.header("ETag", await version("sources-json"));
    return c.json({ sources: (await allSources(db)).map(sourceJson) });
  });

  for (const format of ["csv", "json"] as const) {
    app.get(`/downloads/records.${format}`, async (c) => {
      const known = (await listGovernments(db, {})).map((g) => g.county ?? "").filter(Boolean);
      const extra = [...new URL(c.req.url).searchParams.keys()].filter(
        (k) => !["county", "kind", "records", "government", "source"].includes(k),
      );
      if (extra.length) return c.text(`Unknown query parameter "${extra[0]}".`, 400);
      const r = parseFilter(
        {
          county: c.req.query("county"),
          kind: c.req.query("kind"),
          records: c.req.query("records"),
          government: c.req.query("government"),
          source: c.req.query("source"),
        },
        [...new Set(known)],
      );
      if (!r.ok) return c.text(r.message, 400);
      const f: DirectoryFilter = r.filter;
      attach(c, `records.${format}`);
      c.header("ETag", await version(`records-${format}-${new URL(c.req.url).search}`));
      const enc = new TextEncoder();
      let after: { sourceId: string; recordId: string } | undefined;
      let first = true;
      let done = false;
      const stream = new ReadableStream<Uint8Array>({
        async pull(ctl) {
          if (done) return;
          if (first && format === "csv") ctl.enqueue(enc.encode(csvLine(RECORD_HEADER)));
          if (first && format === "json") ctl.enqueue(enc.encode('{"records":[\n'));
          const rows = await recordsAfter(db, after, f, PAGE_ROWS);
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
