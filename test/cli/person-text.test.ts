import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPersonText, NAME_MAX, REASON_MAX } from "../../src/policy/person-text.js";
import { writeCatalog } from "../night/cli-night.js";
import { runMain } from "./cli-capture.js";

/**
 * A person's one line of text (--reason, --by) is refused, exit 2 naming the option, when it
 * is empty, holds a control or formatting character (it would be echoed to a terminal, break
 * `nor status`'s tab-separated table, be published on /sources/<id>) or is too long; the
 * store is left as it was.
 */
const EVIL = "evil\tTAB\nnewline\u001b]0;pwned\u0007\u001b[2J";

describe("the rule for a person's one line of text", () => {
  it("takes one trimmed line, refuses empty, control, formatting and long text", () => {
    expect(checkPersonText("  clerk's e-mail of Nov 5  ", "reason")).toEqual({
      ok: true,
      text: "clerk's e-mail of Nov 5",
    });
    // The joiners some scripts need are text; so is the formatting pasted words carry: direction
    // marks, a soft hyphen, a word joiner, a zero-width space, the tags of a flag emoji.
    expect(checkPersonText("क्\u200dष", "name").ok).toBe(true);
    for (const ok of [
      "\u05e9\u05dc\u05d5\u05dd\u200e (Hebrew, marked)",
      "\u0645\u0631\u062d\u0628\u0627\u061c",
      "records\u00adoffice",
      "a\u2060b",
      "a\u200bb",
      "Cymru \u{1f3f4}\u{e0067}\u{e0062}\u{e0077}\u{e006c}\u{e0073}\u{e007f}",
    ])
      expect(checkPersonText(ok, "reason").ok, JSON.stringify(ok)).toBe(true);
    expect(checkPersonText(" \t ", "name")).toEqual({
      ok: false,
      why: "the name is empty",
      empty: true,
    });
    // Nothing a reader would see is empty too (the blank Braille pattern included).
    for (const unseen of ["\u200b", "\u00ad\u2060", "\u3164", " \u034f ", "\u2800", "\u2800\u2800"])
      expect(checkPersonText(unseen, "reason"), JSON.stringify(unseen)).toEqual({
        ok: false,
        why: "the reason is empty",
        empty: true,
      });
    // Format characters that are drawn, and a lone combining mark, are text a reader sees.
    for (const drawn of ["\u0600", "\u06dd", "\u070f", "\u{110bd}", "\u0301"])
      expect(checkPersonText(drawn, "reason"), JSON.stringify(drawn)).toEqual({
        ok: true,
        text: drawn,
      });
    // Unseen characters at either end go with the spaces; a flag's tags and an emoji's
    // variation selector, which belong to the character before them, stay.
    expect(checkPersonText("\u200b owner asked\u2060\u200b", "reason")).toEqual({
      ok: true,
      text: "owner asked",
    });
    for (const kept of [
      "ok \u2764\ufe0f",
      "Cymru \u{1f3f4}\u{e0067}\u{e0062}\u{e0077}\u{e006c}\u{e0073}\u{e007f}",
    ])
      expect(checkPersonText(kept, "reason")).toEqual({ ok: true, text: kept });
    // What belongs to the character before it stays at the end: Mongolian variation
    // selectors, a joiner after a virama.
    for (const kept of ["\u1820\u180b", "\u0915\u094d\u200d"])
      expect(checkPersonText(kept, "name")).toEqual({ ok: true, text: kept });
    // Read one character at a time: hundreds of byte-order marks (both a space and a format
    // character) or spaces are judged at once (the regular expressions this replaced took
    // twice as long for each one more: 28 of them, 100 s).
    expect(checkPersonText(`a${"\ufeff".repeat(400)}b`, "reason").ok).toBe(true);
    expect(checkPersonText(`a${"\ufeff".repeat(400)}`, "reason")).toEqual({ ok: true, text: "a" });
    expect(checkPersonText("\ufeff".repeat(400), "reason")).toMatchObject({ empty: true });
    expect(checkPersonText(`a${" ".repeat(40_000)}b`, "reason").ok).toBe(false);
    // A bidi control at an end is still refused, never quietly cut.
    expect(checkPersonText("\u202eabc", "reason").ok).toBe(false);
    for (const bad of [
      "a\tb",
      "a\nb",
      "a\rb",
      "a\u0000b",
      "a\u007fb",
      "a\u0085b",
      "a\u009bb",
      "a\u2028b",
      "a\u202eb",
      "a\u2066b",
    ]) {
      const r = checkPersonText(bad, "reason");
      expect(r.ok, JSON.stringify(bad)).toBe(false);
      if (!r.ok) expect(r.why).toContain("at character 2");
    }
    expect(checkPersonText("x".repeat(REASON_MAX), "reason").ok).toBe(true);
    expect(checkPersonText("x".repeat(REASON_MAX + 1), "reason")).toEqual({
      ok: false,
      why: `has ${REASON_MAX + 1} characters; give at most ${REASON_MAX} characters`,
    });
    expect(checkPersonText("x".repeat(NAME_MAX + 1), "name").ok).toBe(false);
    // Counted in characters, not UTF-16 units.
    expect(checkPersonText("😀".repeat(NAME_MAX), "name").ok).toBe(true);
  });
});

describe("nor mark, nor site, nor flags refuse a --reason or --by that is not one line", () => {
  let dir: string;
  let data: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-person-text-"));
    data = join(dir, "data");
    const catalog = writeCatalog(dir, [
      [
        "id: beta-feed",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        "url: https://records.example.gov/agendas.rss",
      ],
    ]);
    const r = await runMain(["catalog", "import", catalog, "--data", data]);
    expect(r.code, r.stderr).toBe(0);
  }, 60_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const refused = async (args: string[], says: string) => {
    const r = await runMain([...args, "--data", data]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(says);
    // Nothing of the text reaches the terminal: no escape, no bell.
    expect(r.stderr + r.stdout).not.toMatch(/[\u001b\u0007]/);
    return r;
  };

  it("nor mark: --reason and --by", async () => {
    await refused(
      ["mark", "beta-feed", "--not-read", "--reason", EVIL],
      "--reason: holds a control or formatting character (U+0009 at character 5)",
    );
    await refused(
      ["mark", "beta-feed", "--not-read", "--reason", "x".repeat(100_000)],
      "--reason: has 100000 characters; give at most 500 characters",
    );
    await refused(
      ["mark", "beta-feed", "--not-read", "--reason", "clerk", "--by", ""],
      "--by: the name is empty",
    );
    await refused(
      ["mark", "beta-feed", "--not-read", "--reason", "clerk", "--by", "ann\u001b[2J"],
      "--by: holds a control or formatting character",
    );
    await refused(
      ["mark", "beta-feed", "--not-read", "--reason", "clerk", "--by", "a".repeat(101)],
      "--by: has 101 characters; give at most 100 characters",
    );
    // Nothing was marked; status' table keeps one row per source, tab-separated.
    const status = await runMain(["status", "--data", data, "--json"]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)[0].reading).toBe(true);

    const ok = await runMain([
      "mark",
      "beta-feed",
      "--not-read",
      "--reason",
      "  clerk's e-mail  ",
      "--by",
      " Ann ",
      "--data",
      data,
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe("beta-feed: not read (clerk's e-mail)\n");
  });

  it("nor site: --reason and --by", async () => {
    await refused(
      ["site", "example.gov", "--not-read", "--reason", EVIL],
      "--reason: holds a control or formatting character",
    );
    await refused(
      ["site", "example.gov", "--gap", "30s", "--reason", "r".repeat(501)],
      "--reason: has 501 characters",
    );
    await refused(
      ["site", "example.gov", "--not-read", "--reason", "owner", "--by", "  "],
      "--by: the name is empty",
    );
    const list = await runMain(["site", "--data", data]);
    expect(list.stdout).toBe("no owner's requests\n");
    const ok = await runMain([
      "site",
      "example.gov",
      "--not-read",
      "--reason",
      "owner by phone",
      "--by",
      " Ann ",
      "--data",
      data,
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await runMain(["site", "--data", data])).stdout).toContain("by Ann: owner by phone)");
  });

  it("nor flags --clear: --by, checked before the flag is looked up", async () => {
    await refused(["flags", "--clear", "nosuch", "--by", ""], "--by: the name is empty");
    await refused(
      ["flags", "--clear", "nosuch", "--by", "x\u0085y"],
      "--by: holds a control or formatting character (U+0085 at character 2)",
    );
  });
});
