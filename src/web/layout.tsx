import { raw } from "hono/html";
import type { Child, FC } from "hono/jsx";

/**
 * The shared page frame: the site name, the nav, and a footer pointing site owners at the
 * page that explains the checker (P2). hono/jsx escapes every interpolated value; the only
 * raw text here is the constant style sheet.
 */
const CSS = `*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1f2328;background:#fff}
a{color:#0645ad}a:visited{color:#5a3696}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.25rem .5rem}
header.site{background:#12355b;color:#fff}
header.site .in,main,footer .in{max-width:60rem;margin:0 auto;padding:0 1rem}
header.site .in{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem 1.5rem;padding-top:.6rem;padding-bottom:.6rem}
header.site a{color:#fff;text-decoration:none}
header.site .name{font-weight:700;font-size:1.25rem}
header.site nav a{margin-right:1rem}header.site nav a:hover{text-decoration:underline}
main{padding-top:1rem;padding-bottom:2rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin-top:1.75rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d8dee4;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
section.county table{table-layout:fixed}section.county th:first-child{width:60%}
.nowrap{white-space:nowrap}.muted{color:#57606a}.small{font-size:.875rem}
.status{display:inline-block;padding:.05rem .45rem;border-radius:.25rem;font-size:.875rem;font-weight:600}
.tone-yes{background:#dafbe1;color:#116329}.tone-no{background:#ffebe9;color:#a40e26}
.tone-skip{background:#eaeef2;color:#424a53}.tone-trouble{background:#fff8c5;color:#7d4e00}
.tone-none{background:#fff;color:#8c959f;border:1px dashed #d0d7de}
ol.nights{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
ol.nights li{border-radius:.25rem;padding:.25rem .4rem;font-size:.8rem;min-width:5.5rem}
ol.nights li b{display:block;font-size:.75rem;font-weight:600}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
form.filter{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;background:#f6f8fa;padding:.75rem;border-radius:.35rem}
form.filter label{display:flex;flex-direction:column;font-size:.875rem}
ul.counties{columns:4 10rem;padding-left:1.2rem}
.notice{background:#fff8c5;border-left:4px solid #d4a72c;padding:.5rem .75rem}
.retired{background:#eaeef2;border-left:4px solid #8c959f;padding:.5rem .75rem}
footer{border-top:1px solid #d8dee4;margin-top:2rem;padding:1rem 0;color:#57606a;font-size:.875rem}
pre{background:#f4f4f4;padding:.5rem;overflow:auto}`;

export const Layout: FC<{ title: string; head?: Child; children?: Child }> = ({
  title,
  head,
  children,
}) => (
  <>
    {/* A constant, never data: the one raw string (standards mode for every browser). */}
    {raw("<!DOCTYPE html>")}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title} · New on Record</title>
        {head}
        <style>{CSS}</style>
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
          </div>
        </header>
        <main id="main">{children}</main>
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
