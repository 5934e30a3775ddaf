/** The private copy (P8): WARC files under DIR/archive/ and their index in the store. */
export {
  type Capture,
  capturesOf,
  latestCapture,
  validatorsFor,
} from "./captures.js";
export { cdxLines } from "./cdx.js";
export { archiveDir, DEFAULT_ROTATE_BYTES, listWarcFiles } from "./files.js";
export { readCapture, type StoredResponse } from "./read.js";
export { type VerifyProblem, type VerifyReport, verifyArchive } from "./verify.js";
export { WarcArchive, type WarcArchiveOptions } from "./warc-archive.js";
