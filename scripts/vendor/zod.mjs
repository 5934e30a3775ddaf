// What the engine takes from zod (src/zod.ts): its `z`, whole (scripts/bundle-vendor.mjs).
export { z } from "zod";
