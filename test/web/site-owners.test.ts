import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { operatorNameOption } from "../../src/cli/net-options.js";
import {
  DEFAULT_USER_AGENT,
  MAX_BODY_BYTES,
  MAX_REDIRECTS,
  MIN_GAP_MS,
  OPERATOR_EMAIL,
  OPERATOR_NAME,
  PRODUCT_TOKEN,
  RECHECK_EVERY_NIGHTS,
  RECHECK_SOON_NIGHTS,
  RETRY_AFTER_MAX_MS,
  RETRY_WAITS_MS,
  ROBOTS_TTL_MS,
} from "../../src/policy/constants.js";
import { createApp } from "../../src/web/app.js";

async function page(userAgent?: string, operatorName?: string): Promise<string> {
  const app = createApp({
    now: () => Date.now(),
    ...(userAgent ? { userAgent } : {}),
    ...(operatorName ? { operatorName } : {}),
  });
  const res = await app.request("/site-owners");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/text\/html/);
  return res.text();
}

describe("the site-owner page", () => {
  it("P2: is served by the directory and renders every number from the checker's constants", async () => {
    const html = await page();
    expect(html).toContain(`<pre id="user-agent">${DEFAULT_USER_AGENT}</pre>`);
    expect(html).toContain(`At least ${MIN_GAP_MS / 1000} seconds`);
    expect(html).toContain(`${MAX_BODY_BYTES / 1024 / 1024} MiB`);
    expect(html).toContain(`up to ${RETRY_AFTER_MAX_MS / 1000} seconds`);
    expect(html).toContain(
      `${RETRY_WAITS_MS[0] / 1000} seconds, then ${RETRY_WAITS_MS[1] / 1000} seconds`,
    );
    expect(html).toContain(`at most ${MAX_REDIRECTS} redirects`);
    expect(html).toContain(`User-agent: ${PRODUCT_TOKEN}`);
    expect(html).toContain(`mailto:${OPERATOR_EMAIL}`);
  });

  it("P2: the page's source holds no politeness number of its own", () => {
    const src = readFileSync(new URL("../../src/web/site-owners.tsx", import.meta.url), "utf8");
    for (const literal of [
      "2 seconds",
      "30 seconds of",
      "20 MiB",
      "60 seconds",
      "5 seconds",
      "20 seconds",
      "five redirects",
      // P16's cache and P25's pace are numbers too: rendered from ROBOTS_TTL_MS and
      // RECHECK_EVERY_NIGHTS, never written out beside them.
      "Once a day,",
      "within a day.",
      "more than a day old",
      "older than a day",
      "then once a week",
    ]) {
      expect(src).not.toContain(literal);
    }
  });

  it("P2, P16, P25: how often robots.txt is read (once a night, conditionally), the oldest copy it goes by, and the rechecks' pace, come from what the checker does and its constants", async () => {
    const html = await page();
    const t = text(html);
    // The words the constants render to today (a day; seven nights).
    expect(ROBOTS_TTL_MS).toBe(24 * 60 * 60 * 1000);
    expect(RECHECK_EVERY_NIGHTS).toBe(7);
    // P16: each night reads the file once, with its validators (robots-gate.ts, "each night
    // reads the file once, afresh"); ROBOTS_TTL_MS caps the age of a copy gone by, and is no
    // longer said as how often the file is read; a copy read earlier the night's day (nor
    // discover's) serves that night (copy-age.ts, "at most once a day").
    expect(t).toContain(
      "At most once each night (it runs once a day), it reads your robots.txt from the same scheme, host and port as the page.",
    );
    expect(t).toContain(
      "If the file came with an ETag or Last-Modified, it asks with If-None-Match or If-Modified-Since, so an unchanged file costs a 304.",
    );
    expect(t).toContain("It never goes by a copy more than a day old.");
    expect(t).toContain(
      "the checker reads it again each night, unless it read it earlier that day, and never goes by a copy older than a day, so it sees a change within a day.",
    );
    expect(t).not.toContain("Once a day, from");
    expect(html).toContain(`${RECHECK_SOON_NIGHTS} nights soon after, then once a week, and`);
  });

  it("P1: shows the User-Agent the operator configured, escaped", async () => {
    const html = await page("public-records-check/0.1 (+mailto:ops@example.org) <b>");
    expect(html).toContain("public-records-check/0.1 (+mailto:ops@example.org) &lt;b&gt;");
  });

  /** The page's text, tags out and spaces collapsed, as a site owner reads it. */
  const text = (html: string) =>
    html
      .replace(/<[^>]*>/g, "")
      .replace(/&#39;/g, "'")
      .replace(/\s+/g, " ");

  it("P1, P2: with the built-in User-Agent, the built-in operator is named with their address in all four places", async () => {
    const html = await page();
    const t = text(html);
    expect(t).toContain(`${OPERATOR_NAME} runs it: ${OPERATOR_EMAIL}.`);
    expect(t).toContain(`Or write to ${OPERATOR_EMAIL} with your site's address`);
    expect(t).toContain(`Write to ${OPERATOR_EMAIL} with the time and the address it requested.`);
    expect(t).toContain(
      `a person decides whether to read it again: write to ${OPERATOR_EMAIL} to ask for that.`,
    );
    expect(html.split(`<a href="mailto:${OPERATOR_EMAIL}">${OPERATOR_EMAIL}</a>`)).toHaveLength(5);
    // The User-Agent's own address is another domain: the page says whose it is.
    expect(t).toContain(
      `The address in it, frankie@outpostagencies.com, reaches the same person as ${OPERATOR_EMAIL}.`,
    );
  });

  it("P2: says every fact of the operator's page: the November 2026 visits and their faults (the built-in operator's alone), a no night after night from robots.txt, part of a site kept off, what to ask for, a source not reached waits", async () => {
    const t = text(await page());
    for (const fact of [
      "In November 2026, before the nightly checks began, the same name visited these sites",
      "let 20 requests reach paths that robots.txt disallowed",
      "three kinds of robots.txt file were misread",
      "redirects to another host were followed without reading that host's robots.txt",
      "read from the wrong port",
      "fixed on November 8, 2026, and nothing those requests brought back was kept",
      "night after night, that counts as a no",
      "To keep it off part of your site, add Disallow lines for those paths to the same group.",
      "a slower pace, some pages left alone, or the whole site left alone",
      "A source not reached in time waits for the next night",
      "A night's check costs each source one or two requests, about what one person looking once a day would.",
      "A connection closed before the answer is complete is tried again the same way; other errors are not.",
      "If a page still answers 502, 503 or 504 after those tries (or asks for a longer wait), it takes your site as down for that night: it asks nothing more of it until the next night, and that is not counted as a no. A 500 is taken as that page's error alone.",
      "A no may not last: while the directory still reads the source, the checker comes back the next night, the same way and at the same pace.",
    ])
      expect(t, fact).toContain(fact);
    // Another operator's page tells no history that is not theirs.
    const other = text(await page("public-records-check/0.1 (+mailto:ops@example.org)"));
    expect(other).not.toContain("November 2026");
    expect(other).toContain("a slower pace, some pages left alone, or the whole site left alone");
  });

  it("P1, P2: an operator's own mailto User-Agent: the page sends site owners to that address, and names no built-in operator", async () => {
    const ua = "public-records-check/0.1 (+mailto:ops@example.org)";
    const html = await page(ua);
    expect(html).toContain(`<pre id="user-agent">${ua}</pre>`);
    expect(html).not.toContain(OPERATOR_EMAIL);
    expect(html).not.toContain(OPERATOR_NAME);
    expect(html.split('<a href="mailto:ops@example.org">ops@example.org</a>')).toHaveLength(5);
    const t = text(html);
    expect(t).toContain("The person who runs it can be reached at ops@example.org.");
    expect(t).toContain("Or write to ops@example.org with your site's address");
    expect(t).toContain("Write to ops@example.org with the time and the address it requested.");
    expect(html).not.toContain('id="ua-contact"');
  });

  it("P1, P2: an operator's own https User-Agent: the page links to that page wherever it gave an address", async () => {
    const url = "https://records.example.org/contact?from=ua&x=1";
    const ua = `public-records-check/1.2.3 (+${url})`;
    const html = await page(ua);
    expect(html).not.toContain(OPERATOR_EMAIL);
    expect(html).not.toContain(OPERATOR_NAME);
    expect(html).not.toContain("mailto:");
    const shown = url.replace(/&/g, "&amp;");
    expect(html.split(`<a href="${shown}">${shown}</a>`)).toHaveLength(5);
    const t = text(html).replace(/&amp;/g, "&");
    expect(t).toContain(`The person who runs it can be reached at ${url}.`);
    expect(t).toContain(`Or tell its operator, through ${url}, your site's address`);
    expect(t).toContain(
      `Tell its operator, through ${url}, the time and the address it requested.`,
    );
  });

  it("P1, P2: the operator's name, when given, is shown beside their own contact, escaped", async () => {
    const html = await page(
      "public-records-check/0.1 (+mailto:clerk@village.example.org)",
      "Pat O'Neil <records desk>",
    );
    expect(html).toContain(
      'Pat O&#39;Neil &lt;records desk&gt; runs it: <a href="mailto:clerk@village.example.org">clerk@village.example.org</a>.',
    );
    expect(html).not.toContain(OPERATOR_NAME);
    // With the built-in User-Agent a name is never put beside the built-in address.
    const builtIn = text(await page(undefined, "Somebody Else"));
    expect(builtIn).toContain(`${OPERATOR_NAME} runs it: ${OPERATOR_EMAIL}.`);
    expect(builtIn).not.toContain("Somebody Else");
    // Nor beside the built-in contact under another version number.
    const otherVersion = text(
      await page(DEFAULT_USER_AGENT.replace("/0.1 ", "/0.2 "), "Somebody Else"),
    );
    expect(otherVersion).toContain(`${OPERATOR_NAME} runs it: ${OPERATOR_EMAIL}.`);
    expect(otherVersion).not.toContain("Somebody Else");
    expect(() =>
      operatorNameOption("Somebody Else", DEFAULT_USER_AGENT.replace("/0.1 ", "/0.2 ")),
    ).toThrow(/needs a User-Agent with your own contact/);
  });

  it("P1, P2: a mailto address with ?, # or % in it is linked percent-encoded, to the address shown (RFC 6068)", async () => {
    const html = await page("public-records-check/0.1 (+mailto:ops?records#desk%x@example.org)");
    expect(
      html.split(
        '<a href="mailto:ops%3Frecords%23desk%25x@example.org">ops?records#desk%x@example.org</a>',
      ),
    ).toHaveLength(5);
  });
});
