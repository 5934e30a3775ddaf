// What the feed reader takes from feedsmith (src/sources/extract/feedsmith.ts): the bundle
// holds these and what they use, nothing else of the package (scripts/bundle-vendor.mjs).
export { DetectError, parseFeed } from "feedsmith";
