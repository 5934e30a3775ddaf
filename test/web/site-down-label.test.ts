import { describe, expect, it } from "vitest";
import { siteDownReason } from "../../src/policy/admission.js";
import { outcomeLabel, reasonShown } from "../../src/web/public/format.js";

/**
 * The directory's words for a source not asked because its site was down (the project's rule
 * beside P15): a night's row is read on later days, so it says "that night", never "tonight";
 * never a no (P21), never the night's time running out.
 */
describe("P15, P21: a source not asked because its site was down, as the directory says it", () => {
  const reason = siteDownReason(503, "retries-exhausted", "https://example.gov/a.rss");

  it("P15, P21: its label says the site was down that night (read on a later day), not a no", () => {
    const label = outcomeLabel("unreached", reason);
    expect(label.text).toBe("not asked: the site was down that night");
    expect(label.tone).toBe("skip");
    // What it answered, without the words twice.
    expect(reasonShown("unreached", reason)).toBe(
      "it answered HTTP 503 after its retries (https://example.gov/a.rss); not asked again tonight",
    );
  });
});
