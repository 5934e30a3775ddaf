import { describe, expect, it } from "vitest";
import { runMain } from "./cli-capture.js";

/**
 * An outside tester's finding (ot-public): `nor serve --origin https://example.org/records`
 * served, and every feed, calendar and sitemap link left `/records` out (only the origin was
 * kept, without a word); a user name and password, a query or a fragment went the same way. The
 * directory answers at the root of its origin, so anything more is refused as usage (exit 2),
 * before the store is looked for.
 */
describe("--origin", () => {
  for (const [given, says] of [
    ["https://example.org/records", "has the path /records"],
    ["https://user:secret@example.org", "has a user name"],
    ["https://example.org/?a=1", "has a query"],
    ["https://example.org/#top", "has a fragment"],
  ] as const) {
    it(`is the origin alone: ${given} is refused, saying what is more (exit 2)`, async () => {
      for (const command of ["serve", "start"]) {
        const r = await runMain([command, "--data", "/nonexistent/nor-origin", "--origin", given]);
        expect(r.code, command).toBe(2);
        expect(r.stderr, command).toContain("--origin is the public origin alone");
        expect(r.stderr, command).toContain(says);
        // Its password is never written back (stderr goes to the journal under systemd).
        expect(r.stderr, command).not.toContain("secret");
      }
    });
  }
});
