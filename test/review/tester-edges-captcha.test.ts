import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOf } from "../../src/policy/night-date.js";
import {
  nightOn,
  noRobots,
  oneItemFeed,
  outcomesOn,
  testerCatalog,
  testerWorld,
} from "../night/tester-nights.js";

/**
 * Outside tester (tester-edges): P21 says a "prove you are human" page is a no whatever its
 * status, and the site-owners page lists "a CAPTCHA, a page that asks visitors to prove
 * they're a person" among the answers on which "it stops". A short page that is nothing but
 * such a question, with the site's own image CAPTCHA (an <img> and one text field, the
 * commonest kind on small government sites) or a reCAPTCHA shown in an <iframe> (no
 * g-recaptcha class), is not recognised: at 200 the night goes on to the site's other source,
 * at 503 it is asked twice more, as an outage.
 */
const world = testerWorld("nor-tedges-captcha-");
const tonight = nightOf(Date.now());

const IMAGE_CAPTCHA = `<!DOCTYPE html><html><head><title>Security Check</title></head><body>
<h1>Please prove you are a human</h1>
<p>To continue to the Agenda Center, type the characters you see in the picture below.</p>
<form method="post" action="/captcha/verify">
<img src="/captcha/image.jpg?id=8841" alt="CAPTCHA image">
<input type="text" name="captcha_code" autocomplete="off">
<input type="hidden" name="return" value="/feed.xml">
<input type="submit" value="Continue">
</form></body></html>`;

const IFRAME_RECAPTCHA = `<!DOCTYPE html><html><head><title>Just a moment</title></head><body>
<p>Please verify you are a human to continue.</p>
<iframe src="https://www.google.com/recaptcha/api2/anchor?k=6Lc_aX0UAAAAABx&amp;hl=en&amp;size=normal" width="304" height="78"></iframe>
</body></html>`;

const PROVE_ONLY = `<!DOCTYPE html><html><head><title>One moment</title></head><body>
<p>Please prove you are human to continue to this site.</p>
<button onclick="location.reload()">I am human</button>
</body></html>`;

/** Two feed sources on one site; the first answers `page` with `status`. */
async function twoSources(name: string, status: number, page: string) {
  const site = await world.fleet.server();
  site.route("/robots.txt", noRobots);
  site.route("/feed.xml", (_q, res) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  site.route("/feed2.xml", oneItemFeed);
  const catalog = testerCatalog(world.dir, name, [
    `  - { id: agendas, government: city-of-test, records: agendas, access: feed, url: "${site.url("/feed.xml")}" }`,
    `  - { id: minutes, government: city-of-test, records: minutes, access: feed, url: "${site.url("/feed2.xml")}" }`,
  ]);
  const data = join(world.dir, name);
  await nightOn(catalog, data, tonight);
  return { site, outcomes: outcomesOn(data, tonight) };
}

describe("P21: a page that asks the visitor to prove they are a person is a no", () => {
  it("P21: a 200 image-CAPTCHA page ('Please prove you are a human', an <img> and one text field) is the site's no: the site's other source is not asked that night", async () => {
    const { site, outcomes } = await twoSources("image-200", 200, IMAGE_CAPTCHA);
    expect(outcomes["agendas"]?.outcome).toBe("refused");
    // On a no it stops on that site for the night.
    expect(site.hits("/feed2.xml")).toHaveLength(0);
  }, 60_000);

  it("P21, P15: a 503 image-CAPTCHA page is a no at once, not an outage tried twice more", async () => {
    const { site, outcomes } = await twoSources("image-503", 503, IMAGE_CAPTCHA);
    expect(site.hits("/feed.xml")).toHaveLength(1);
    expect(outcomes["agendas"]?.outcome).toBe("refused");
  }, 60_000);

  it("P21: a 200 page that is only 'Please verify you are a human' and a reCAPTCHA in an <iframe> is the site's no: its other source is not asked", async () => {
    const { site, outcomes } = await twoSources("iframe-200", 200, IFRAME_RECAPTCHA);
    expect(outcomes["agendas"]?.outcome).toBe("refused");
    expect(site.hits("/feed2.xml")).toHaveLength(0);
  }, 60_000);

  it("P21: a 200 page that only says 'Please prove you are human' (P21's own words, a button, nothing else) is the site's no: its other source is not asked", async () => {
    const { site, outcomes } = await twoSources("prove-200", 200, PROVE_ONLY);
    expect(outcomes["agendas"]?.outcome).toBe("refused");
    expect(site.hits("/feed2.xml")).toHaveLength(0);
  }, 60_000);

  it("P21, P15: a 429 whose page only says 'Please prove you are human' is a no at once, not asked twice more", async () => {
    const { site, outcomes } = await twoSources("prove-429", 429, PROVE_ONLY);
    expect(site.hits("/feed.xml")).toHaveLength(1);
    expect(outcomes["agendas"]?.outcome).toBe("refused");
    expect(site.hits("/feed2.xml")).toHaveLength(0);
  }, 60_000);
});
