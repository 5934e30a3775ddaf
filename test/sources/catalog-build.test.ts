import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildCatalog, sitemapFront, wayFor } from "../../scripts/build-catalog.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";

const SEED = new URL("../fixtures/seed-mini/", import.meta.url).pathname;
const built = buildCatalog(SEED);
const doc = parse(built.text) as {
  governments: Record<string, string>[];
  sources: Record<string, unknown>[];
  leads: Record<string, string>[];
};
const seedRows = (f: string) => {
  const [head, ...rows] = readFileSync(`${SEED}${f}`, "utf8").trim().split("\n");
  return { head: head!.split(","), rows };
};

describe("scripts/build-catalog.ts, over a few rows of the seed", () => {
  it("writes every government, with its evidence, and https:// only for a bare host name", () => {
    expect(doc.governments).toHaveLength(seedRows("ohio-governments.csv").rows.length);
    const byId = new Map(doc.governments.map((g) => [g.id, g]));
    expect(byId.get("city-of-westerville")?.website).toBe("https://www.westerville.org/");
    expect(byId.get("adams-county")).toMatchObject({
      kind: "county",
      county: "Adams",
      // The seed's website was the site's sitemap (robots.txt's Sitemap line): its front page.
      website: "https://adamscountyoh.gov/",
      evidence: expect.stringMatching(/^nrjones8\/robots-dot-txt-archive-bot\/.*@9dbb26d2/),
      notes: expect.stringMatching(/^FIPS 39001, seat West Union; /),
    });
    // No website seen: none written, and the .gov domain stays in the notes.
    expect(byId.get("ashtabula-county")?.website).toBeUndefined();
    expect(byId.get("ashtabula-county")?.notes).toContain("ashtabulacounty.gov");
  });

  it("a website that is the site's sitemap is given as its front page, and said so in the header", () => {
    expect(built.text).toContain(
      "#   adams-county: https://adamscountyoh.gov/wp-sitemap.xml -> https://adamscountyoh.gov/ (a sitemap, not a page)",
    );
    expect(sitemapFront("https://perrycountyohio.gov/sitemap_index.xml")).toBe(
      "https://perrycountyohio.gov/",
    );
    expect(sitemapFront("https://www.richlandcountyoh.gov/sitemap/")).toBe(
      "https://www.richlandcountyoh.gov/",
    );
    expect(sitemapFront("http://example.gov:8080/a/Sitemap.xml.gz")).toBe(
      "http://example.gov:8080/",
    );
    // Pages of the site that are not its sitemap stay as the seed saw them.
    expect(sitemapFront("https://www.ketteringoh.org/current-agenda")).toBeUndefined();
    expect(sitemapFront("https://www.westerville.org/")).toBeUndefined();
    expect(sitemapFront("https://example.gov/sitemaps-of-ohio-history/page")).toBeUndefined();
  });

  it("P24: makes a source of every page a preset or recipe reads as seen, unconfirmed, with its evidence", () => {
    const ways = doc.sources.map((s) => [s.id, s.platform ?? "recipe", s.access, s.url]);
    expect(ways).toEqual([
      [
        "city-of-alliance-agendas",
        "civicplus-agendacenter",
        "page",
        "http://oh-alliance.civicplus.com/AgendaCenter",
      ],
      [
        "columbus-city-schools-meetings",
        "boarddocs",
        "api",
        "https://go.boarddocs.com/oh/columbus/Board.nsf/Public",
      ],
      [
        "city-of-columbus-meetings",
        "legistar-html",
        "form",
        "https://columbus.legistar.com/Calendar.aspx",
      ],
      [
        "city-of-columbus-meetings-2",
        "granicus-opencities",
        "api",
        "https://www.columbus.gov/ocapi/calendars/getcalendaritems",
      ],
      [
        "metro-rta-akron-meetings",
        "recipe",
        "page",
        "https://www.akronmetro.org/metro-board-meetings.aspx",
      ],
      [
        "city-of-fairborn-meetings",
        "granicus",
        "feed",
        "https://fairborn.granicus.com/ViewPublisher.php?view_id=2",
      ],
      ["city-of-lima-meetings", "primegov", "api", "https://limaoh.primegov.com/"],
      ["city-of-canton-meetings", "civicclerk", "api", "https://cantonoh.api.civicclerk.com/v1"],
      [
        "city-of-akron-agendas",
        "onbase-agendaonline",
        "page",
        "https://onlinedocs.akronohio.gov/OnBaseAgendaOnline/Meetings",
      ],
      [
        "akron-public-schools-meetings",
        "boarddocs",
        "api",
        "https://go.boarddocs.com/oh/akron/Board.nsf/Public",
      ],
    ]);
    const seed = seedRows("ohio-record-pages.csv").rows.join("\n");
    for (const s of doc.sources) {
      expect(s.confirmed).toBe(false);
      expect(seed).toContain(String(s.evidence));
    }
  });

  it("keeps every other record page and single-meeting link as a lead, saying why", () => {
    expect(doc.leads.map((l) => [l.government, l.url, l.why])).toEqual([
      [
        "city-of-akron",
        "https://onlinedocs.akronohio.gov/OnBaseAgendaOnline/Meetings/Search?dropid=11&mtids=101&dropsv={}&dropev={}",
        "the address is a template ({} = dates) no preset fills in",
      ],
      [
        "city-of-akron",
        "https://www.akronohio.gov/cms/site/2387094f0d307b46/index.html",
        "needs a page recipe",
      ],
      [
        "city-of-akron",
        "https://www.akronohio.gov/cms/site/4820d164c8ec21ed/index.html",
        "needs a page recipe",
      ],
      [
        "city-of-westerville",
        "www.westerville.org/council",
        "the address has no scheme; a source's address is fetched, so none is guessed",
      ],
      [
        "city-of-westerville",
        "https://westervilleoh.portal.civicclerk.com",
        expect.stringContaining("API host"),
      ],
      [
        "city-of-marysville",
        "https://marysvilleohio.org/archive.aspx",
        "no preset reads this platform at this address",
      ],
      [
        "akron-public-schools",
        "https://go.boarddocs.com/oh/akron/Board.nsf/XML-ActiveMeetings",
        expect.stringContaining("the same list as source akron-public-schools-meetings"),
      ],
      [
        "cleveland-metroparks",
        "https://www.clevelandmetroparks.com/about/cleveland-metroparks-organization/board-of-park-commissioners/11-20-2025",
        expect.stringMatching(/^one meeting's page, not a list \(P6\)/),
      ],
      [
        "cleveland-metroparks",
        "https://www.clevelandmetroparks.com/boardstream",
        expect.stringMatching(/^not a page of records/),
      ],
      [
        "city-of-kettering",
        "https://www.ketteringoh.org/minutes-9-23-25",
        expect.stringMatching(/^one meeting's page, not a list \(P6\)/),
      ],
      [
        "city-of-worthington",
        "https://worthingtonoh.new.swagit.com/videos/141728",
        expect.stringMatching(/^one meeting's page, not a list \(P6\)/),
      ],
    ]);
    for (const l of doc.leads) expect(l.evidence).toMatch(/@[0-9a-f]{7,}|^https?:/);
    const pages = seedRows("ohio-record-pages.csv").rows.length;
    const singles = seedRows("ohio-single-meeting-links.csv").rows.length;
    expect(doc.sources.length + doc.leads.length).toBe(pages + singles);
  });

  it("P6 (ot-catalog): two record pages one preset reads as the same list (BoardDocs' Public page and its XML-ActiveMeetings feed, one tenant) make one source, not two that fetch and list the same meetings twice", () => {
    const akron = doc.sources.filter((s) => s.government === "akron-public-schools");
    expect(akron.map((s) => s.id)).toEqual(["akron-public-schools-meetings"]);
    const lead = doc.leads.find((l) => l.url?.endsWith("/oh/akron/Board.nsf/XML-ActiveMeetings"));
    expect(lead?.why).toBe(
      "the same list as source akron-public-schools-meetings: the boarddocs preset asks https://go.boarddocs.com/oh/akron/Board.nsf/XML-ActiveMeetings for both",
    );
  });

  it("P6 (ot-catalog): a record-page row whose evidence says it is one meeting's page (or no records page at all) is a lead saying so, not one that needs a recipe", () => {
    const why = (url: string) => doc.leads.find((l) => l.url === url)?.why;
    expect(why("https://www.ketteringoh.org/minutes-9-23-25")).toMatch(
      /^one meeting's page, not a list \(P6\)/,
    );
    expect(why("https://www.clevelandmetroparks.com/boardstream")).toMatch(
      /^not a page of records: a WebEx registration link/,
    );
  });

  it("a CivicClerk portal whose notes name the tenant's API host without a scheme is a lead saying so, not 'only the portal was seen'; none is guessed", () => {
    const portal = "https://fairfieldoh.portal.civicclerk.com";
    expect(
      wayFor(
        portal,
        "civicclerk",
        "CivicClerk portal; City Council meetings; registry also names API host fairfieldoh.api.civicclerk.com/v1/Events/ (written without scheme)",
      ),
    ).toEqual({
      why: "the civicclerk preset reads the tenant's API host; the evidence names it only without a scheme (fairfieldoh.api.civicclerk.com/v1/Events/), and a source's address is fetched, so none is guessed",
    });
    expect(
      wayFor(
        "https://perrysburgoh.portal.civicclerk.com",
        "civicclerk",
        "registry: API perrysburgoh.api.civicclerk.com/v1/Events confirmed (written without scheme)",
      ),
    ).toEqual({ why: expect.stringContaining("(perrysburgoh.api.civicclerk.com/v1/Events)") });
    // Named with its scheme: said so too (the row's address is still the portal).
    expect(wayFor(portal, "civicclerk", "see https://x.api.civicclerk.com/v1/Events")).toEqual({
      why: "the civicclerk preset reads the tenant's API host; the evidence names it (https://x.api.civicclerk.com/v1/Events) only in its notes, not as this row's address",
    });
    // Notes that name no API host: as before.
    for (const notes of ["JS-only portal", "the API returned 404", ""])
      expect(wayFor(portal, "civicclerk", notes)).toEqual({
        why: "the civicclerk preset reads the tenant's API host (<tenant>.api.civicclerk.com); only the portal was seen",
      });
    // The API host with its scheme is a source, whatever the notes say.
    expect(wayFor("https://cantonoh.api.civicclerk.com/v1", "civicclerk", "")).toEqual({
      access: "api",
      platform: "civicclerk",
    });
  });

  it("writes a catalog the checker accepts, the same every time", () => {
    const c = parseCatalog(built.text, "ohio.yaml");
    expect([c.governments.length, c.sources.length]).toEqual([built.governments, built.sources]);
    expect(buildCatalog(SEED).text).toBe(built.text);
    expect(built.text).toContain(
      `# ${built.governments} governments, ${built.sources} sources, ${built.leads} leads.`,
    );
  });
});
