import { describe, expect, it } from "vitest";
import { MAX_URL_LENGTH } from "../../src/policy/constants.js";
import { extractFeed } from "../../src/sources/extract/feed.js";
import { extractPage } from "../../src/sources/extract/page.js";

const enc = (s: string) => new TextEncoder().encode(s);

/**
 * Reviewer revbombs2 on 0e6e57f0: a base longer than MAX_URL_LENGTH is not used, and the parent's
 * (the feed's or the page's own address) stands. Where the long base names another site, its
 * links were resolved against the wrong one: `/agenda/7` under
 * `xml:base="https://records.example.gov/cal?state=…"` (its length all in a query the link does
 * not keep) became `https://feeds.example.net/agenda/7`, a record linking a host the feed never
 * named (before 0e6e57f0: `https://records.example.gov/agenda/7`). A link with a path of its own
 * never keeps the base's query or fragment, nor a path-absolute one its path: resolved against
 * the base without them (or its origin), such a link is the one the document meant, and as short.
 */
describe("P6: a base too long to use still names its site", () => {
  const state = "x".repeat(MAX_URL_LENGTH * 2);

  it("P6: an Atom entry's xml:base with a long query: its relative links resolve on its site and path, not the feed's", () => {
    const feed = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><entry xml:base="https://records.example.gov/meetings/list?state=${state}"><title>a</title><id>urn:a</id><link href="/agenda/7"/></entry><entry xml:base="https://records.example.gov/meetings/list?state=${state}"><title>b</title><id>urn:b</id><link href="minutes/8.pdf"/></entry></feed>`;
    const x = extractFeed(enc(feed), "https://feeds.example.net/atom.xml");
    expect(x.records.map((r) => r.url)).toEqual([
      "https://records.example.gov/agenda/7",
      "https://records.example.gov/meetings/minutes/8.pdf",
    ]);
  });

  it("P6: an Atom feed's xml:base on another site with a path too long: a path-absolute link keeps its site", () => {
    const feed = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://records.example.gov/${state}/"><title>f</title><entry><title>a</title><id>urn:a</id><link href="/agenda/7"/></entry></feed>`;
    const x = extractFeed(enc(feed), "https://feeds.example.net/atom.xml");
    expect(x.records.map((r) => r.url)).toEqual(["https://records.example.gov/agenda/7"]);
  });

  it("P6: a page's <base href> on another site with a long query: its links resolve there, not on the page's address", () => {
    const page = `<html><head><base href="https://docs.example.gov/board/?s=${state}"></head><body><ul><li><a href="/agenda/7">Agenda</a></li><li><a href="m/8.pdf">Minutes</a></li></ul></body></html>`;
    const x = extractPage(enc(page), "https://www.example.net/list", {
      items: "li",
      title: "a",
      link: "a",
    });
    expect(x.records.map((r) => r.url)).toEqual([
      "https://docs.example.gov/agenda/7",
      "https://docs.example.gov/board/m/8.pdf",
    ]);
  });
});
