import type { Child, FC } from "hono/jsx";
import { formatInZone, SITE_OWNER_ZONE } from "../../policy/zone.js";
import { BASE, CSRF_FIELD } from "./auth.js";

/**
 * The console's page frame: wider than the public Layout (the log is a wide table), never
 * indexed. hono/jsx escapes every interpolated value, so names and reasons from the store or
 * the catalog render as text.
 */
export const ConsoleLayout: FC<{ title: string; csrf?: string; children?: Child }> = ({
  title,
  csrf,
  children,
}) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex, nofollow" />
      <title>{title} · Console · New on Record</title>
      <style>{`body{font:15px/1.45 system-ui,sans-serif;max-width:80rem;margin:1rem auto;padding:0 1rem;color:#222}
nav a{margin-right:1rem}table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .4rem;text-align:left;vertical-align:top}
.msg{background:#fee;border:1px solid #c00;padding:.4rem}.note{color:#555}form.inline{display:inline}code{word-break:break-all}`}</style>
    </head>
    <body>
      <a href="#main">Skip to the content</a>
      {csrf !== undefined && (
        <nav>
          <a href={BASE}>Overview</a>
          <a href={`${BASE}/sources`}>Sources</a>
          <a href={`${BASE}/flags`}>Flags</a>
          <a href={`${BASE}/nights`}>Nights</a>
          <a href={`${BASE}/log`}>Request log</a>
          <form class="inline" method="post" action={`${BASE}/sign-out`}>
            <CsrfField token={csrf} />
            <button type="submit">Sign out</button>
          </form>
        </nav>
      )}
      <main id="main">
        <h1>{title}</h1>
        {children}
      </main>
    </body>
  </html>
);

/** The hidden field every form of ours carries (the synchronizer token). */
export const CsrfField: FC<{ token: string }> = ({ token }) => (
  <input type="hidden" name={CSRF_FIELD} value={token} />
);

export const Message: FC<{ text: string | undefined }> = ({ text }) =>
  text ? (
    <p class="msg" role="alert">
      {text}
    </p>
  ) : null;

/** New York wall time, the clock Ohio's site owners read their logs by (P27). */
export function nyTime(iso: string | number): string {
  const t = typeof iso === "number" ? iso : Date.parse(iso);
  return Number.isNaN(t) ? String(iso) : formatInZone(t, SITE_OWNER_ZONE);
}
