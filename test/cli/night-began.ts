import { join } from "node:path";
import Database from "better-sqlite3";

/**
 * Sets when the nights of the SQLite store in `data` began (`night` alone, or every night), as
 * a test's way to a store whose nights began at a time of its choosing: a day and more ago (a
 * past night may then run without the 20-hour wait), or just after midnight.
 */
export function setNightsBegan(data: string, at: number, night?: string): void {
  const db = new Database(join(data, "nor.db"));
  try {
    const when = new Date(at).toISOString();
    if (night === undefined) db.prepare("update nights set started_at = ?").run(when);
    else db.prepare("update nights set started_at = ? where night = ?").run(when, night);
  } finally {
    db.close();
  }
}
