/**
 * The one style sheet of the site and the console, served as /assets/site.css (the CSP allows
 * styles only from our own origin, no inline ones). Narrow screens: long words and URLs
 * wrap, wide tables scroll inside their own box, so no page scrolls sideways at 390 px; in a
 * table a word breaks only when it is longer than its column could ever be ("New records" never
 * reads "New rec / ords").
 */
import { NIGHTS_SHOWN } from "./public/load.js";

/**
 * The strip's cell of the night whose row in the table has focus: the k-th row from the top
 * (newest first) is the k-th cell from the right (oldest first), for every k the strip shows.
 */
const FOCUSED_NIGHT = Array.from(
  { length: NIGHTS_SHOWN },
  (_, i) =>
    `.nights-block:has(tbody tr:nth-child(${i + 1}) a.night:focus) .strip a:nth-last-of-type(${i + 1}) rect`,
).join(",");

export const SITE_CSS = `*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font:16px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1f2328;background:#fff;overflow-wrap:anywhere}
a{color:#0645ad}a:visited{color:#5a3696}
:focus-visible{outline:3px solid #d4a72c;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.25rem .5rem;z-index:2}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;padding:0;border:0;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
header.site{background:#12355b;color:#fff}
header.site .in,main,footer .in{max-width:60rem;margin:0 auto;padding:0 1rem}
main.wide{max-width:80rem}
header.site .in{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding-top:.6rem;padding-bottom:.6rem}
header.site a{color:#fff;text-decoration:none}
header.site .name{font-weight:700;font-size:1.25rem}
header.site nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}header.site nav a:hover{text-decoration:underline}
header.site form{display:flex;gap:.25rem;flex:1 1 14rem;max-width:24rem}
header.site input[type=search]{flex:1;min-width:0;padding:.25rem .4rem}
main{padding-top:1rem;padding-bottom:2rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin-top:1.75rem}
.table-wrap{overflow-x:auto;max-width:100%;position:relative}
table{border-collapse:collapse;width:100%;margin:.5rem 0;overflow-wrap:break-word}
.record{overflow-wrap:anywhere}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d8dee4;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
.nowrap{white-space:nowrap}.muted{color:#57606a}.small{font-size:.875rem}
.status{display:inline-block;padding:.05rem .45rem;border-radius:.25rem;font-size:.875rem;font-weight:600}
.tone-yes{background:#dafbe1;color:#116329}.tone-no{background:#ffebe9;color:#a40e26}
.tone-skip{background:#eaeef2;color:#424a53}.tone-trouble{background:#fff8c5;color:#7d4e00}
.tone-offline{background:#f6f8fa;color:#424a53;border:1px dashed #57606a}
.tone-none{background:#fff;color:#57606a;border:1px dashed #8c959f}
.strip svg{display:block;width:100%;max-width:36rem;height:auto}
.strip a:hover rect,${FOCUSED_NIGHT}{stroke:#1f2328;stroke-width:2}
.strip .words{visibility:hidden;fill:#1f2328}.strip a:hover .words{visibility:visible}
table.nights tbody th{background:none}table.nights tr:focus-within{background:#f6f8fa}
tr:target{background:#fff8c5;outline:2px solid #d4a72c}[id]{scroll-margin-top:1rem}
.strip .fill-yes{fill:#2da44e}.strip .fill-no{fill:#cf222e}.strip .fill-skip{fill:#8c959f}
.strip .fill-trouble{fill:#d4a72c}.strip .fill-none{fill:#fff;stroke:#8c959f;stroke-dasharray:2 2}
.strip .fill-offline{fill:#eaeef2;stroke:#57606a}
ul.kinds{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.25rem .75rem}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.25rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
form.filter{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;background:#f6f8fa;padding:.75rem;border-radius:.35rem}
form.filter label{display:flex;flex-direction:column;font-size:.875rem;max-width:100%}
select,input{max-width:100%}
form.search-big{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0}form.search-big input{flex:1 1 12rem;font-size:1.1rem;padding:.35rem .5rem}
ul.counties{columns:4 10rem;padding-left:1.2rem}
ul.windows{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.notice{background:#fff8c5;border-left:4px solid #d4a72c;padding:.5rem .75rem}
.retired{background:#eaeef2;border-left:4px solid #8c959f;padding:.5rem .75rem}
.msg{background:#ffebe9;border-left:4px solid #cf222e;padding:.5rem .75rem}
.note{color:#57606a}form.inline{display:inline}code{overflow-wrap:anywhere}
nav.console{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;margin:.5rem 0}
nav.pages{display:flex;gap:1rem;margin:1rem 0}
footer{border-top:1px solid #d8dee4;margin-top:2rem;padding:1rem 0;color:#57606a;font-size:.875rem}
pre{background:#f4f4f4;padding:.5rem;overflow:auto;white-space:pre-wrap}
svg.chart{display:block;width:100%;max-width:36rem;height:auto}
figure.strip,figure.night-chart{margin:1rem 0}`;
