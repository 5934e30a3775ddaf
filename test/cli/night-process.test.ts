import { describe, expect, it } from "vitest";
import { NIGHT_MALLOC_ARENA_MAX, nightEnv } from "../../src/cli/night-process.js";

describe("a night's process environment", () => {
  it("bounds malloc's arenas at two, keeps the rest of the environment, and keeps an operator's own value", () => {
    const given = { PATH: "/usr/bin", TZ: "America/New_York" };
    const env = nightEnv(given);
    expect(env).toEqual({ PATH: "/usr/bin", TZ: "America/New_York", MALLOC_ARENA_MAX: "2" });
    expect(NIGHT_MALLOC_ARENA_MAX).toBe("2");
    expect(given).not.toHaveProperty("MALLOC_ARENA_MAX");
    expect(nightEnv({ ...given, MALLOC_ARENA_MAX: "8" })["MALLOC_ARENA_MAX"]).toBe("8");
  });
});
