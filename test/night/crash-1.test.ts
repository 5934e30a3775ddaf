import { crashSuite } from "./crash-harness.js";

// Part 1 of the crash test (test/night/crash-harness.ts): its slice of the seeded kills, with
// its own fleet and journal, so the parts' waits (P15's 5 s and 20 s after a cut send) overlap.
crashSuite(0);
