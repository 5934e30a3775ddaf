import { describe, expect, it } from "vitest";
import { robotsUrlFor } from "../../src/policy/robots/index.js";
import { allowedOnBothPaths } from "./robots-paths.js";

/**
 * The faults the site-owner page owns up to (November 2026): "It misread three kinds of
 * robots.txt file … Once, it read a site's file from the wrong port." Each is pinned here.
 */
async function allowed(body: string | Uint8Array, url: string): Promise<boolean> {
  const r = await allowedOnBothPaths(body, url);
  // P16–P18: `nor robots check` and the night read the same bytes the same way.
  expect(r.night, `the night and the CLI disagree on ${url}`).toBe(r.cli);
  return r.cli;
}

describe("the three misread kinds of robots.txt", () => {
  it("P17: a file that starts with a byte-order mark keeps its first line", async () => {
    const text = "User-agent: public-records-check\nDisallow: /records/\n";
    const file = Uint8Array.from([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    expect(await allowed(file, "https://h/records/2026")).toBe(false);
    expect(await allowed(file, "https://h/other")).toBe(true);
  });

  it("P17: a blank line inside a group does not end the group", async () => {
    const file = "User-agent: *\n\nDisallow: /agendas/\n\nDisallow: /bids/\n";
    expect(await allowed(file, "https://h/agendas/1")).toBe(false);
    expect(await allowed(file, "https://h/bids/1")).toBe(false);
    expect(await allowed(file, "https://h/news")).toBe(true);
  });

  it("P17: `User-agent: * Disallow: /` on one line closes the whole site", async () => {
    const file = "User-agent: * Disallow: /\n";
    expect(await allowed(file, "https://h/")).toBe(false);
    expect(await allowed(file, "https://h/anything?at=all")).toBe(false);
    expect(await allowed(file, "https://h/robots.txt")).toBe(true);
  });
});

describe("the wrong-port fault", () => {
  it("P16: a URL on :8080 reads robots.txt from :8080", () => {
    expect(robotsUrlFor("http://h:8080/x")).toBe("http://h:8080/robots.txt");
  });

  it("P16: https and http are different files", () => {
    expect(robotsUrlFor("https://h/x")).toBe("https://h/robots.txt");
    expect(robotsUrlFor("http://h/x")).toBe("http://h/robots.txt");
  });

  it("P16: :443 on https is elided", () => {
    expect(robotsUrlFor("https://h:443/x")).toBe("https://h/robots.txt");
  });
});
