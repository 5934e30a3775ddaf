/**
 * The console's query strings follow the directory's rule (docs/api.md): each page reads the
 * parameters it names, each at most once; one it does not read, one given twice, or one that
 * cannot be read is a 400 that names it, never silently ignored or cut to its first value. The
 * check is the public routes' own (public/filters.ts `reads`), answered as the page speaks: a
 * console page with the message, or `{"error": "…"}` for the JSON download.
 */
import type { MiddlewareHandler } from "hono";
import { reads } from "../public/filters.js";
import type { ConsoleEnv } from "./auth.js";
import { ConsoleLayout, Message } from "./layout.js";

export function consoleReads(
  params: readonly string[],
  as: { title: string } | "json",
): MiddlewareHandler<ConsoleEnv> {
  return reads(params, (c, message) => {
    if (as === "json") return c.json({ error: message }, 400);
    // Signed in: the console's nav (sign-in has no session yet).
    const session = c.get("session") as ConsoleEnv["Variables"]["session"] | undefined;
    return c.html(
      <ConsoleLayout title={as.title} {...(session ? { csrf: session.csrfToken } : {})}>
        <Message text={message} />
      </ConsoleLayout>,
      400,
    );
  });
}
