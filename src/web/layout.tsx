import { raw } from "hono/html";
import type { Child, FC } from "hono/jsx";
import { DIRECTION_MARKS } from "../policy/shown-text.js";

/**
 * The marks that set or turn the direction of text (U+061C, U+200E, U+200F, the embeddings,
 * overrides and isolates U+202A–U+202E, U+2066–U+2069), as docs/api.md names them.
 */
const BIDI_CONTROLS = new RegExp(`[${DIRECTION_MARKS}]`, "gu");

/**
 * The text of a page's `<title>`, which holds names from the catalog and the sites (a
 * government's, a record page's, a county's, a search's words) and has no `<bdi>` to hold them:
 * a name carrying a right-to-left override would reorder the rest of the tab's text (" · New on
 * Record"). Its bidi controls are left out, the simplest rule that is always right: closing what
 * a name opens with U+202C / U+2069 would have to follow UAX #9's pairing (a PDI closes the
 * embeddings inside its isolate; a name's stray PDI closes an isolate we opened), while a title
 * without any has nothing to reorder. Only the tab's text: the page shows each name whole, in a
 * `<bdi>`, and the JSON and feeds give it as written.
 */
function titleText(title: string): string {
  return title.replace(BIDI_CONTROLS, "");
}

/**
 * The shared page frame of the site and the console: the site name, the nav, a search box and
 * a footer pointing site owners at the page that explains the checker (P2). hono/jsx escapes
 * every interpolated value; the style sheet is a file of ours (/assets/site.css), so the CSP
 * allows no inline style or script.
 */
export const Layout: FC<{
  title: string;
  head?: Child;
  /** The console: never indexed, its own nav, a wider column. */
  console?: Child;
  children?: Child;
}> = ({ title, head, console, children }) => (
  <>
    {/* A constant, never data: the one raw string (standards mode for every browser). */}
    {raw("<!DOCTYPE html>")}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {console ? <meta name="robots" content="noindex, nofollow" /> : null}
        <title>
          {titleText(title)}
          {console ? " · Console" : ""} · New on Record
        </title>
        <link rel="stylesheet" href="/assets/site.css" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        {head}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to the content
        </a>
        <header class="site">
          <div class="in">
            <a class="name" href="/">
              New on Record
            </a>
            <nav aria-label="Site">
              <a href="/governments">Governments</a>
              <a href="/new">New on record</a>
              <a href="/site-owners">For site owners</a>
            </nav>
            <form method="get" action="/search">
              <label class="skip" for="site-q">
                Search the directory
              </label>
              <input id="site-q" type="search" name="q" placeholder="Search records, governments" />
              <button type="submit">Search</button>
            </form>
          </div>
        </header>
        <main id="main" class={console ? "wide" : undefined}>
          {console}
          {children}
        </main>
        <footer>
          <div class="in">
            New on Record lists where Ohio's governments post public records and notes what is new
            each night. It links to records; it never opens them. Run a site we check?{" "}
            <a href="/site-owners">What our checker does, and how to reach us</a>.
          </div>
        </footer>
      </body>
    </html>
  </>
);

/** A table that scrolls inside its own box on a narrow screen, never the whole page. */
export const Wide: FC<{ children?: Child }> = ({ children }) => (
  <div class="table-wrap">{children}</div>
);
