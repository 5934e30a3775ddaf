import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOf } from "../../src/policy/night-date.js";
import { runMain } from "../cli/cli-capture.js";
import {
  nightOn,
  noRobots,
  oneItemFeed,
  testerCatalog,
  testerWorld,
} from "../night/tester-nights.js";

/**
 * Outside tester (tester-edges): P3 says the checker never sends an API key and the catalog
 * refuses sources that ask for one; policy/credentials.ts recognises keys by a list of
 * parameter names. Common API-key parameters of API gateways that public bodies publish
 * through are missing from it: Azure API Management's `subscription-key`, 3scale's
 * `user_key`/`app_key`, AWS API Gateway's `x-api-key`, `access_key`, `api_secret`, GitLab's
 * `private_token`, OAuth 1's `oauth_token`, and an S3 presigned URL's access key id, signature
 * and session token (while CloudFront's `Signature` and Azure's `sig` are refused). A catalog source carrying one is imported, and the key goes to the site
 * every night; a redirect handing one out is followed with it.
 *
 * fix-edges: the catalog's refusal is looked for on stdout, where `nor catalog check` prints
 * every problem (stderr carries only "catalog has N problems"); the test first read stderr.
 */
const world = testerWorld("nor-tedges-cred-");
const tonight = nightOf(Date.now());

/** A query carrying a key, and the parameter the refusal should name. */
const KEY_QUERIES: [string, string][] = [
  ["subscription-key=9f2c4e7a1b3d5f60", "subscription-key"],
  ["user_key=9f2c4e7a1b3d5f60", "user_key"],
  ["app_id=1&app_key=9f2c4e7a1b3d5f60", "app_key"],
  ["x-api-key=9f2c4e7a1b3d5f60", "x-api-key"],
  ["access_key=9f2c4e7a1b3d5f60", "access_key"],
  ["api_secret=9f2c4e7a1b3d5f60", "api_secret"],
  ["private_token=9f2c4e7a1b3d5f60", "private_token"],
  ["oauth_consumer_key=k&oauth_token=9f2c4e7a1b3d5f60", "oauth_token"],
  // An S3 presigned URL: an access key id and the signature its secret made (CloudFront's
  // `Signature` and Azure's `sig` are refused already), and a session token.
  [
    "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261206%2Fus-east-2%2Fs3%2Faws4_request&X-Amz-Date=20261206T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=9f2c4e7a1b3d5f60",
    "X-Amz-",
  ],
  ["X-Amz-Security-Token=9f2c4e7a1b3d5f60", "X-Amz-Security-Token"],
];

describe("P3: an API key under a gateway's usual parameter name is never sent", () => {
  it.each(KEY_QUERIES)(
    "P3: the catalog refuses a source whose URL carries ?%s (exit 2, naming %s)",
    async (query, param) => {
      const file = join(world.dir, `cat-${param}-${query.length}.yaml`);
      writeFileSync(
        file,
        [
          "governments:",
          "  - { id: city-of-test, name: City of Test, kind: city, county: Franklin }",
          "sources:",
          `  - { id: events, government: city-of-test, records: meetings, access: feed, url: "https://data.example.gov/events.rss?${query}" }`,
          "",
        ].join("\n"),
      );
      const r = await runMain(["catalog", "check", file]);
      expect(r.code).toBe(2);
      // `nor catalog check` prints each problem on stdout (file:line:column …) and only the
      // count on stderr: the parameter is named on stdout (fix-edges; the test asked stderr).
      expect(r.stdout).toContain(param);
    },
  );

  it("P3: a redirect to the feed with ?subscription-key=… is not followed: the site never receives the key", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/events.rss", (q, res) => {
      if ((q.url ?? "").includes("subscription-key")) return oneItemFeed(q, res);
      res.writeHead(302, { location: "/events.rss?subscription-key=9f2c4e7a1b3d5f60" }).end();
    });
    const catalog = testerCatalog(world.dir, "redirect-key", [
      `  - { id: events, government: city-of-test, records: meetings, access: feed, url: "${site.url("/events.rss")}" }`,
    ]);
    await nightOn(catalog, join(world.dir, "redirect-key"), tonight);
    expect(site.hits("/events.rss").length).toBeGreaterThan(0);
    expect(site.requests.filter((r) => r.path.includes("subscription-key"))).toEqual([]);
  }, 60_000);

  it("P3: nor discover refuses a homepage whose URL carries ?subscription-key=… (as it refuses ?api_key=…): the site never receives the key", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end("<html><body>City</body></html>");
    });
    const data = join(world.dir, "discover-key");
    // A store as a catalog import leaves it (discover logs into an existing store).
    const catalog = testerCatalog(world.dir, "discover-key", [
      `  - { id: events, government: city-of-test, records: meetings, access: feed, url: "${site.url("/events.rss")}" }`,
    ]);
    expect((await runMain(["catalog", "import", catalog, "--data", data])).code).toBe(0);
    const keyed = await runMain([
      ...["discover", `${site.url("/")}?subscription-key=9f2c4e7a1b3d5f60`, "--data", data],
      ...["--allow-private-addresses", "--gap-ms", "50"],
    ]);
    expect(site.requests.filter((r) => r.path.includes("subscription-key"))).toEqual([]);
    expect(keyed.code).toBe(2);
  }, 60_000);
});
