import { describe, expect, it } from "vitest";
import { type AdmitInput, admit } from "../../src/policy/admission.js";

/** The pure admission: what the journal decides from the durable state (P9, P10). */
const NOW = Date.parse("2026-11-05T06:00:00Z");
function input(extra: Partial<AdmitInput>): AdmitInput {
  return {
    night: "2026-11-05",
    now: NOW,
    holder: "host:1:me",
    gapMs: 2000,
    isRobots: false,
    path: "/agendas",
    site: {},
    rules: [],
    prior: [],
    replayAllowed: true,
    holderDead: () => false,
    ...extra,
  };
}

describe("admission while another live process holds the site", () => {
  it("P9: waits for its lease, asking again at most every 250 ms", () => {
    const a = admit(input({ site: { lease: { holder: "host:2:other", until: NOW + 60_000 } } }));
    expect(a).toEqual({ kind: "wait", until: NOW + 250, why: "in flight" });
    const soon = admit(input({ site: { lease: { holder: "host:2:other", until: NOW + 100 } } }));
    expect(soon).toMatchObject({ kind: "wait", until: NOW + 100 });
  });

  it("P9: a live holder past its lease (a slow body) is polled every 250 ms, never with a zero wait", () => {
    const a = admit(input({ site: { lease: { holder: "host:2:other", until: NOW - 5_000 } } }));
    expect(a).toEqual({ kind: "wait", until: NOW + 250, why: "in flight" });
  });
});
