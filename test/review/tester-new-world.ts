import { openStore } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";

/**
 * The outside tester's view of the directory after real `nor night` runs (test/night/
 * tester-nights.ts): the web app over the store the nights wrote, asked as the public asks.
 */
export const ORIGIN = "https://new.example";

export async function ask<T = unknown>(
  data: string,
  now: string,
  paths: readonly string[],
): Promise<{ status: number; headers: Headers; text: string; json: T | undefined }[]> {
  const store = await openStore({ kind: "sqlite", dir: data });
  try {
    const app = createApp({ db: store.db, now: () => Date.parse(now), origin: ORIGIN });
    const out = [];
    for (const p of paths) {
      const res = await app.request(p);
      const text = await res.text();
      let json: T | undefined;
      try {
        json = JSON.parse(text) as T;
      } catch {
        json = undefined;
      }
      out.push({ status: res.status, headers: res.headers, text, json });
    }
    return out;
  } finally {
    await store.close();
  }
}

export interface NewItem {
  sourceId: string;
  recordId: string;
  title: string;
  date: string | null;
  url: string | null;
  firstSeenNight: string;
  alreadyListed: boolean;
}
export interface NewAnswer {
  items: NewItem[];
  counts: { total: number; alreadyListed: number };
}
