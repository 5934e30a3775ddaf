import type { Child, FC } from "hono/jsx";
import { formatInZone, SITE_OWNER_ZONE } from "../../policy/zone.js";
import { Layout } from "../layout.js";
import { BASE, CSRF_FIELD } from "./auth.js";

/**
 * The console's page frame: the site's own Layout (DOCTYPE, style sheet, header), never
 * indexed, with the console's nav when signed in. hono/jsx escapes every interpolated value,
 * so names and reasons from the store or the catalog render as text.
 */
export const ConsoleLayout: FC<{ title: string; csrf?: string; children?: Child }> = ({
  title,
  csrf,
  children,
}) => (
  <Layout
    title={title}
    console={
      <>
        {csrf !== undefined && (
          <nav class="console" aria-label="Console">
            <a href={BASE}>Overview</a>
            <a href={`${BASE}/sources`}>Sources</a>
            <a href={`${BASE}/sites`}>Sites</a>
            <a href={`${BASE}/flags`}>Flags</a>
            <a href={`${BASE}/nights`}>Nights</a>
            <a href={`${BASE}/log`}>Request log</a>
            <form class="inline" method="post" action={`${BASE}/sign-out`}>
              <CsrfField token={csrf} />
              <button type="submit">Sign out</button>
            </form>
          </nav>
        )}
        <h1>{title}</h1>
      </>
    }
  >
    {children}
  </Layout>
);

/**
 * A console table that scrolls sideways inside its own box on a narrow screen (the site's
 * `.table-wrap`): a region named for its table, in the Tab order, so a keyboard reaches the
 * box and scrolls it with the arrow keys even when the table has nothing else to focus (a
 * source's marks, a request-log search). The site's :focus-visible outline shows it focused;
 * the box holds (position: relative) any `.visually-hidden` header text, so that text never
 * widens the page.
 */
export const Wide: FC<{ label: string; children?: Child }> = ({ label, children }) => (
  <section class="table-wrap" aria-label={label} tabindex={0}>
    {children}
  </section>
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
