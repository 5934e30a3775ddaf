import { describe, expect, it } from "vitest";
import { urlCredentialProblem } from "../../src/sources/catalog/credentials.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import type { CatalogError } from "../../src/sources/catalog/problems.js";

const HEAD = `governments:
  - { id: g, name: G, kind: city }
sources:
`;

function refusal(source: string): string {
  try {
    parseCatalog(HEAD + source, "c.yaml");
  } catch (e) {
    return (e as CatalogError).message;
  }
  throw new Error("the catalog was accepted");
}

describe("P3: the catalog refuses sources that ask for credentials", () => {
  it("P3: refuses URL user-info, naming file:line and the field", () => {
    const msg = refusal(`  - id: s
    government: g
    records: bids
    access: feed
    url: https://clerk:hunter2@g.gov/bids.rss
`);
    expect(msg).toContain("c.yaml:8:10: sources[0].url: URL carries user-info");
    expect(msg).not.toContain("hunter2");
  });

  it.each([
    "key",
    "apikey",
    "API_KEY",
    "api-key",
    "token",
    "Access_Token",
    "password",
    "passwd",
    "secret",
    "sig",
    "Signature",
    "client_secret",
  ])("P3: refuses the credential query parameter %s", (name) => {
    expect(urlCredentialProblem(`https://g.gov/api/events?from=2026&${name}=abc`)).toMatch(
      /credential query parameter/,
    );
    const msg = refusal(
      `  - { id: s, government: g, records: bids, access: feed, url: "https://g.gov/f?${name}=x" }\n`,
    );
    expect(msg).toMatch(
      /c\.yaml:4:\d+: sources\[0\]\.url: URL carries the credential query parameter/,
    );
  });

  it("P3: refuses credentials in alternates, in form fields and in the api next link too", () => {
    const msg = refusal(`  - id: s
    government: g
    records: permits
    access: form
    url: https://g.gov/search
    extract: { items: tr }
    form:
      fields:
        txtPassword: x
        q: "https://g.gov/?token=1"
    alternates:
      - access: feed
        url: https://u@g.gov/feed
`);
    expect(msg).toContain(
      'c.yaml:12:9: sources[0].form.fields.txtPassword: "txtPassword" is a credential',
    );
    expect(msg).toContain(
      "c.yaml:13:12: sources[0].form.fields.q: URL carries the credential query parameter",
    );
    expect(msg).toContain("c.yaml:16:14: sources[0].alternates[0].url: URL carries user-info");
  });

  it.each([
    "headers",
    "Authorization",
    "cookie",
    "Cookies",
    "X-API-Key",
    "apiKey",
    "bearer_token",
    "username",
  ])("P3: refuses a %s key anywhere, once, as a credential", (key) => {
    const msg = refusal(`  - id: s
    government: g
    records: bids
    access: feed
    url: https://g.gov/f
    ${key}: anything
`);
    expect(msg).toContain(`c.yaml:9:5: sources[0].${key}: "${key}" is a credential or header`);
    expect(msg).toMatch(/^catalog has 1 problem:/);
  });

  it("P3: refuses an Authorization-looking value even under an innocent key", () => {
    const msg = refusal(`  - id: s
    government: g
    records: bids
    access: feed
    url: https://g.gov/f
    notes: "Bearer eyJhbGciOiJIUzI1NiJ9"
`);
    expect(msg).toContain("c.yaml:9:12: sources[0].notes: looks like an Authorization value");
  });

  it.each([
    ["https://g.gov/api/events?from=2026;api_key=abc", "api_key"],
    ["https://g.gov/api/events;api_key=abc?from=2026", "api_key"],
  ])(
    "P3: refuses %s, as the fetch pipeline would never send it (a ';' in the query, a path's matrix parameter)",
    (url, name) => {
      expect(urlCredentialProblem(url)).toContain(`"${name}"`);
    },
  );

  it("accepts ordinary public URLs whose parameters merely resemble credential names", () => {
    for (const u of [
      "https://g.gov/f?keyword=bids",
      "https://g.gov/f?monkey=1&tokens=2",
      "https://g.gov/AgendaCenter/Search/?term=&CIDs=all",
      "https://g.gov/app/list;jsessionid=ABC123?q=a;b",
    ]) {
      expect(urlCredentialProblem(u)).toBeUndefined();
    }
  });
});
