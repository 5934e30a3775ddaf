import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_USER_AGENT,
  MAX_BODY_BYTES,
  MAX_REDIRECTS,
  MIN_GAP_MS,
  OPERATOR_EMAIL,
  PRODUCT_TOKEN,
  RETRY_AFTER_MAX_MS,
  RETRY_WAITS_MS,
} from "../../src/policy/constants.js";
import { createApp } from "../../src/web/app.js";

async function page(userAgent?: string): Promise<string> {
  const app = createApp({ now: () => Date.now(), ...(userAgent ? { userAgent } : {}) });
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
    ]) {
      expect(src).not.toContain(literal);
    }
  });

  it("P1: shows the User-Agent the operator configured, escaped", async () => {
    const html = await page("public-records-check/0.1 (+mailto:ops@example.org) <b>");
    expect(html).toContain("public-records-check/0.1 (+mailto:ops@example.org) &lt;b&gt;");
  });
});
