/**
 * The JSON API described as OpenAPI 3.1 (/api/openapi.json). The answer shapes are zod schemas
 * turned into JSON Schema 2020-12 (the dialect OpenAPI 3.1 uses); objects are closed
 * (additionalProperties: false), so a field added to an answer without its description fails
 * the test that validates real answers against this document (test/web/finding.test.ts).
 */
import type { z as Zod } from "zod";
import { MAX_TERMS } from "../../store/read/search.js";
import { z } from "../../zod.js";
import { GOVERNMENT_KINDS, RECORD_KINDS } from "./filters.js";

const httpUrl = z
  .string()
  .regex(/^https?:\/\//)
  .describe("An http(s) URL; nothing else is ever given");
const nul = <T extends Zod.ZodType>(t: T) => t.nullable();
const iso = z.string().describe("ISO 8601 UTC time");
const nightKey = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe("A night: the date it began, Ohio time");

export const Government = z.strictObject({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  county: nul(z.string()),
  website: nul(httpUrl),
  sourceCount: z.number().int(),
  retiredAt: nul(iso),
});

export const Source = z.strictObject({
  id: z.string(),
  governmentId: z.string(),
  name: nul(z.string()),
  records: z.string(),
  url: nul(httpUrl),
  access: z.string(),
  platform: nul(z.string()),
  retiredAt: nul(iso),
  renamedTo: nul(z.string()).describe(
    "The id this retired record page was renamed to: its records, nights and marks are there now",
  ),
});

const recordFields = {
  sourceId: z.string(),
  recordId: z.string(),
  title: z.string(),
  date: nul(z.string()),
  url: nul(httpUrl),
  kind: nul(z.string()),
  firstSeenNight: nightKey,
  firstSeenAt: iso,
  alreadyListed: z
    .boolean()
    .describe(
      "Already listed when first seen (its page read for the first time, or an older page of its list): the page's record, never new on record",
    ),
};
export const RecordItem = z.strictObject(recordFields);
export const NewRecord = z.strictObject({
  ...recordFields,
  sourceName: nul(z.string()),
  sourceRecords: z.string(),
  governmentId: z.string(),
  governmentName: z.string(),
  governmentKind: z.string(),
  county: nul(z.string()),
});

const Status = z.strictObject({ reading: z.boolean(), reason: nul(z.string()), since: nul(iso) });

const Outcome = z.strictObject({
  night: nightKey,
  outcome: z.string(),
  reason: nul(z.string()),
  evidence: nul(
    z.strictObject({
      provider: z.string(),
      verdict: z.string(),
      reference: nul(z.string()),
      marker: nul(z.string()),
    }),
  ),
  httpStatus: nul(z.number().int()),
  url: nul(httpUrl),
  way: nul(
    z.strictObject({
      used: nul(
        z.strictObject({
          access: z.string(),
          platform: nul(z.string()),
          url: nul(httpUrl),
          asked: nul(httpUrl).describe(
            "P11: the URL the night asked instead of `url`, which had moved permanently there (301 or 308)",
          ),
        }),
      ),
      skipped: z.array(z.strictObject({ access: z.string(), url: nul(httpUrl), why: z.string() })),
    }),
  ),
  recordsFound: z.number().int(),
  newRecords: z.number().int(),
  checkedAt: iso,
});

const Filter = z.strictObject({
  county: nul(z.string()),
  kind: nul(z.string()),
  records: nul(z.string()),
  government: nul(z.string()),
  source: nul(z.string()),
});

/** What a filter names that left the catalog: its records are on its own page, not in the lists. */
const Retired = nul(
  z
    .strictObject({
      what: z
        .enum(["source", "government"])
        .describe(
          "What left the catalog: the record page the filter names, or a government (the one named, or the record page's)",
        ),
      id: z.string().describe("Its id"),
      retiredAt: iso,
      renamedTo: nul(z.string()).describe(
        "The id the record page the filter names was renamed to, its records with it; then `page` is that id's page",
      ),
      page: z
        .string()
        .regex(/^\/(?:sources|governments)\//)
        .describe(
          "The directory's page that keeps the records (a path): the record page's own when the filter names one, else the government's",
        ),
      api: z
        .string()
        .regex(/^\/api\/(?:sources|governments)\//)
        .describe("That page's JSON twin (a path)"),
    })
    .describe(
      "The filter names a retired record page, a record page of a retired government, or a retired government: lists, counts, feeds, downloads and search cover the current catalog, so its records are not here but on `page`. Null otherwise",
    ),
);

/** A record page seen in public material, not confirmed, never read by the checker. */
export const Lead = z
  .strictObject({
    records: z.string(),
    confirmed: z.literal(false).describe("Never confirmed: no one has seen records there yet"),
    address: nul(z.string()).describe(
      "The address as seen: it may lack a scheme or be a template (null only for a script address, never given)",
    ),
    url: nul(httpUrl).describe("The address when it is an http(s) URL, else null"),
    platform: nul(z.string()).describe("The platform as the material names it"),
    why: z.string().describe("Why the checker does not read it yet"),
    evidence: z
      .array(z.strictObject({ text: z.string(), url: nul(httpUrl) }))
      .describe("Where it was seen: a stored page, or a file of a public GitHub repository"),
    listedSince: iso,
  })
  .describe("A record page not yet confirmed (a catalog lead)");

export /** P26: record pages not read, each `{ source, reason, since }` (not-read.tsx `notReadJson`). */
const NotReadList = z.array(z.strictObject({ source: z.string(), reason: z.string(), since: iso }));

const ANSWERS = {
  governments: z.strictObject({ governments: z.array(Government) }),
  government: z.strictObject({
    ...Government.shape,
    sources: z.array(
      z.strictObject({ ...Source.shape, status: Status, lastOutcome: nul(Outcome) }),
    ),
    leads: z.array(Lead),
  }),
  counties: z.strictObject({
    counties: z.array(z.strictObject({ county: z.string(), governments: z.number().int() })),
  }),
  county: z.strictObject({
    county: z.string(),
    governments: z.array(z.strictObject({ ...Government.shape, sources: z.array(Source) })),
    notRead: NotReadList.describe(
      "P26: the county's record pages that are not read, why and since when; [] when none is",
    ),
  }),
  source: z.strictObject({
    ...Source.shape,
    government: nul(Government),
    status: Status,
    lastOutcome: nul(Outcome),
    nights: z.array(
      z.strictObject({
        night: nightKey,
        state: z.enum([
          "checked",
          "not-checked",
          "running",
          "offline",
          "before",
          "not-yet-listed",
          "retired",
        ]),
        outcome: nul(Outcome),
      }),
    ),
    newestRecords: z.array(RecordItem),
  }),
  new: z.strictObject({
    window: z.enum(["yesterday", "7d", "30d", "night"]),
    from: nightKey,
    to: nightKey,
    nights: z.array(
      z.strictObject({
        night: nightKey,
        state: z.enum([
          "finished",
          "running",
          "incomplete",
          "did-not-run",
          "checker-offline",
          "not-yet",
          "not-listed",
        ]),
        text: z.string(),
      }),
    ),
    filter: Filter,
    retired: Retired,
    notRead: NotReadList.describe(
      "P26: the record pages the filter selects (as it selects their records: a record page, a government's, a county's, a kind's, or the whole state's) that are not read, why and since when: no night reads them, so nothing from them can be new until they are read again; [] when none is",
    ),
    counts: z.strictObject({
      total: z.number().int(),
      alreadyListed: z
        .number()
        .int()
        .describe(
          "Records first seen in the window that their pages already listed (a page read for the first time, or its list's older pages): not new, in none of the other counts nor the items; they are on their pages",
        ),
      byCounty: z.array(z.strictObject({ county: nul(z.string()), count: z.number().int() })),
      byRecords: z.array(z.strictObject({ records: z.string(), count: z.number().int() })),
    }),
    capped: z.boolean(),
    items: z.array(NewRecord),
    changed: z
      .array(
        z.strictObject({
          ...NewRecord.shape,
          changedAt: iso.describe("When a night brought it up to date"),
        }),
      )
      .describe(
        "Records new on record in the 30 nights before the window (never new again, in none of the counts nor the items) that a night of the window shows retitled, redated or of another kind: `changedAt` says when; the latest change first, at most 100",
      ),
    changedCapped: z
      .boolean()
      .describe(
        "More than 100 records were brought up to date in the window: the latest 100 are listed",
      ),
  }),
  search: z.strictObject({
    q: z.string(),
    page: z.number().int(),
    perPage: z.number().int(),
    pages: z
      .number()
      .int()
      .min(1)
      .max(50)
      .describe("The pages of records that can be asked for: those the matches fill, at most 50"),
    capped: z
      .boolean()
      .describe(
        "More records match than the 50 pages list (the best 1000 are listed): more words narrow the search",
      ),
    retired: Retired,
    notRead: NotReadList.describe(
      "P26: the record pages the search's filter selects that are not read, why and since when (its words select records, not pages): what they post meanwhile is never read, so never found; [] when none is",
    ),
    recordTotal: z.number().int().describe("All the records that match, listed or not"),
    governments: z.array(Government),
    sources: z.array(z.strictObject({ ...Source.shape, governmentName: z.string() })),
    records: z.array(NewRecord),
  }),
  error: z.strictObject({ error: z.string() }),
} as const;

type Answer = keyof typeof ANSWERS;

const json = (s: Answer) => ({
  "application/json": { schema: z.toJSONSchema(ANSWERS[s], { target: "draft-2020-12" }) },
});

const param = (name: string, description: string, schema: object = { type: "string" }) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
const FILTERS = [
  param("county", "A county's name (case-insensitive)"),
  param("kind", "Kind of government", { type: "string", enum: [...GOVERNMENT_KINDS] }),
  param(
    "records",
    "Kind of records: each record's as shown, its own kind where it is one of these but `other`, else its record page's (the record pages a search lists, and the calendar's meetings, by their page's)",
    { type: "string", enum: [...RECORD_KINDS] },
  ),
  param("government", "A government's id"),
  param("source", "A record page's id"),
];
const WINDOW = [
  param("window", "yesterday (default), 7d or 30d", {
    type: "string",
    enum: ["yesterday", "7d", "30d"],
  }),
  param("night", "One night, YYYY-MM-DD (instead of window)", { type: "string", format: "date" }),
];
const idParam = (name: string) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string" },
});

function op(
  summary: string,
  answer: Answer,
  parameters: object[],
  notFound: false | string = false,
) {
  return {
    get: {
      summary,
      parameters,
      responses: {
        "200": { description: "OK", content: json(answer) },
        "400": {
          description:
            "A query parameter is unknown, given more than once, or has a bad value (the message names it)",
          content: json("error"),
        },
        ...(notFound ? { "404": { description: notFound, content: json("error") } } : {}),
      },
    },
  };
}

/** The document; `origin` is the configured public origin (never the request's Host). */
export function openApiDocument(origin: string) {
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "New on Record API",
      version: "1",
      description:
        "Where Ohio's governments post public records, and what is new on them. Read-only; times are ISO 8601 UTC; absent values are null. Field notes: docs/api.md.",
    },
    servers: [{ url: origin }],
    paths: {
      "/api/governments": op("Current governments", "governments", FILTERS.slice(0, 2)),
      "/api/governments/{id}": op(
        "A government with its record pages, and those not yet confirmed (leads)",
        "government",
        [idParam("id")],
        "No such id",
      ),
      "/api/counties": op("Counties with how many governments each has", "counties", []),
      "/api/counties/{county}": op(
        "A county's governments and their record pages",
        "county",
        [idParam("county")],
        "No such id",
      ),
      "/api/sources/{id}": op(
        "A record page: status, the last 30 nights, newest records",
        "source",
        [idParam("id")],
        "No such id",
      ),
      "/api/new": op("New records in a window of nights", "new", [...FILTERS, ...WINDOW]),
      "/api/search": op(
        "Search governments, record pages and record titles",
        "search",
        [
          {
            ...param(
              "q",
              `Words to find, at most ${MAX_TERMS} different ones in at most 500 characters, a run of spaces counted as one (more is a 400, never cut): every word must match, whole (never cut to its first letters), the last as a prefix`,
            ),
            required: true,
          },
          param("page", "Page of records, from 1 to `pages` (at most 50)", {
            type: "integer",
            minimum: 1,
            maximum: 50,
          }),
          ...FILTERS,
        ],
        "The page is past the last page of the results",
      ),
    },
  };
}
