import { describe, expect, it } from "vitest";
import { extractDownload } from "../../../src/sources/extract/download.js";
import { SHOWN_FIELD_MAX } from "../../../src/sources/extract/fields.js";

const csv = (title: string, date: string): Uint8Array =>
  new TextEncoder().encode(`Title,Date\r\n"${title}","${date}"\r\nNotice 2,2024-01-02\r\n`);

/**
 * An outside tester's finding (P13, P14): a CSV download of one 19 MB field (9,500,000 `a\n`
 * in a `\r\n` file) cost extractDownload 9.1 s of CPU and 2 GB at its peak (measured on dist):
 * not the CSV reader (0.4 s) but the title after it, cleaned twice (its whitespace collapsed by a
 * global replace of 9,500,000 matches, 4.3 s a pass: linear, but a 19 MB title is shown as a
 * line). A title or kind is now read to SHOWN_FIELD_MAX characters, and a date to
 * DATE_TEXT_MAX (find-date.ts): the bound is asserted, never the time.
 */
describe("P13, P14: a download's 19 MB field is read only as far as it is shown", () => {
  it("P13, P14: a title of 9,500,000 lines is read to SHOWN_FIELD_MAX characters, and the other rows still read", () => {
    const x = extractDownload(csv("a\n".repeat(9_500_000), "2024-01-01"), "https://ex.test/f.csv", {
      format: "csv",
      title: "Title",
      date: "Date",
    });
    expect(x.records).toHaveLength(2);
    expect(x.records[0]?.title.length).toBeLessThanOrEqual(SHOWN_FIELD_MAX);
    expect(x.records[0]?.title.startsWith("a a a")).toBe(true);
    expect(x.records[0]?.date).toBe("2024-01-01");
    expect(x.records[1]).toMatchObject({ title: "Notice 2", date: "2024-01-02" });
  });

  it("P13, P14: a date field of 19 MB after its date is read for the date its start writes", () => {
    const x = extractDownload(
      csv("Notice 1", `2024-01-01 ${"a\n".repeat(9_500_000)}`),
      "https://ex.test/f.csv",
      { format: "csv", title: "Title", date: "Date" },
    );
    expect(x.records.map((r) => [r.title, r.date])).toEqual([
      ["Notice 1", "2024-01-01"],
      ["Notice 2", "2024-01-02"],
    ]);
  });
});
