import type { RequestLogEntry } from "../../src/net/types.js";

/** A plain attempt; override what the test is about. */
export function entry(over: Partial<RequestLogEntry> = {}): RequestLogEntry {
  const startedAt = over.startedAt ?? Date.UTC(2026, 10, 5, 8, 12, 4);
  return {
    startedAt,
    endedAt: startedAt + 150,
    method: "GET",
    url: "https://www.example.gov/agendas/",
    status: 200,
    outcome: "ok",
    bytes: 1234,
    site: "example.gov",
    origin: "https://www.example.gov",
    source: "oh-example-agendas",
    purpose: "page",
    attempt: 1,
    ...over,
  };
}
