import type { Hono } from "hono";
import type { FC } from "hono/jsx";
import { clearFlag, type FlagRow, listFlags } from "../../store/admin.js";
import type { Db } from "../../store/db.js";
import { echo } from "../public/echo.js";
import { wordFor } from "../public/format.js";
import { BASE, type ConsoleEnv } from "./auth.js";
import { ConsoleLayout, CsrfField, Message, nyTime, Wide } from "./layout.js";
import { consoleReads } from "./query.js";
import { CONSOLE_BY } from "./sources.js";

const FlagTable: FC<{ flags: FlagRow[]; csrf?: string }> = ({ flags, csrf }) => (
  <Wide label={csrf ? "Open flags" : "Cleared flags"}>
    <table>
      <tr>
        <th>kind</th>
        <th>source</th>
        <th>night</th>
        <th>detail</th>
        <th>raised</th>
        <th>{csrf ? <span class="visually-hidden">clear</span> : "cleared"}</th>
      </tr>
      {flags.map((f) => (
        <tr>
          <td>{f.kind}</td>
          <td>
            <a href={`${BASE}/sources/${encodeURIComponent(f.source)}`}>{f.source}</a>
          </td>
          <td>
            <a href={`${BASE}/nights/${f.night}`}>{f.night}</a>
          </td>
          <td>{f.detail}</td>
          <td>{nyTime(f.raisedAt)}</td>
          <td>
            {csrf ? (
              <form method="post" action={`${BASE}/flags/clear`}>
                <CsrfField token={csrf} />
                <input type="hidden" name="id" value={f.id} />
                <button type="submit">Clear</button>
              </form>
            ) : (
              `${f.clearedAt ? nyTime(f.clearedAt) : ""} by ${f.clearedBy ?? "?"}`
            )}
          </td>
        </tr>
      ))}
    </table>
  </Wide>
);

/**
 * P24, P25: the checker flags, a person decides. The queue shows the open flags with a clear
 * button each; clearing records who and when and keeps the row, shown under a toggle.
 */
export function flagRoutes(app: Hono<ConsoleEnv>, db: Db, now: () => number, reads: Db = db): void {
  const render = async (csrf: string, message?: string) => {
    const all = await listFlags(reads, true);
    const open = all.filter((f) => f.clearedAt === null);
    const cleared = all.filter((f) => f.clearedAt !== null).reverse();
    return (
      <ConsoleLayout title="Flags for review" csrf={csrf}>
        <Message text={message} />
        <p>
          <span id="open-count">{open.length}</span> open {wordFor(open.length, "flag")}. A flag
          asks a person to look; the checker decides nothing (P24). To stop reading a source, mark
          it on its page.
        </p>
        {open.length > 0 ? <FlagTable flags={open} csrf={csrf} /> : <p>Nothing to review.</p>}
        <details>
          <summary>Cleared flags ({cleared.length})</summary>
          <FlagTable flags={cleared} />
        </details>
      </ConsoleLayout>
    );
  };

  app.get("/flags", consoleReads([], { title: "Flags for review" }), async (c) =>
    c.html(await render(c.get("session").csrfToken)),
  );

  app.post("/flags/clear", async (c) => {
    const body = await c.req.parseBody();
    const id = typeof body["id"] === "string" ? body["id"] : "";
    // A store that fails throws: the app answers 500.
    const outcome = await clearFlag(db, id, CONSOLE_BY, now());
    const csrf = c.get("session").csrfToken;
    switch (outcome.kind) {
      case "cleared":
        return c.redirect(`${BASE}/flags`, 303);
      case "unknown-flag":
        return c.html(await render(csrf, `There is no flag "${echo(id)}": nothing changed.`), 404);
      case "already-cleared":
        return c.html(
          await render(
            csrf,
            `That flag was already cleared ${nyTime(outcome.at)} by ${outcome.by ?? "?"}: nothing changed.`,
          ),
          409,
        );
    }
  });
}
