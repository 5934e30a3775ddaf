import { NIGHT_LOCK_FILE, START_LOCK_FILE } from "../night/night-lock.js";
import { RUNNERS_DIR } from "../night/night-runners.js";
import { archiveInTheWay } from "../store/archive/files.js";
import type { DataDirPart } from "../store/data-dir.js";

/**
 * What a night's opening uses in the data directory: the marks of the nights running there and
 * the opening lock, which `nor catalog import` looks at and takes as well
 * (night/catalog-beside-night.ts).
 */
export const OPENING_PARTS: readonly DataDirPart[] = [
  {
    name: RUNNERS_DIR,
    kind: "directory",
    refused: (path) =>
      `${path} is not a directory: nor night keeps the marks of its running processes in a directory there; move what is in the way`,
  },
  {
    name: NIGHT_LOCK_FILE,
    kind: "file",
    refused: (path) =>
      `${path} is a directory: nor night keeps its lock in a file there; move what is in the way`,
  },
];

/** What `nor night` keeps in the data directory beside the store, each of its own kind. */
export const NIGHT_PARTS: readonly DataDirPart[] = [
  ...OPENING_PARTS,
  {
    name: "archive",
    kind: "directory",
    // The words the archive says it in when it is opened (files.ts).
    refused: archiveInTheWay,
  },
];

/** What `nor start` keeps there as well: its own lock, beside the nights' parts. */
export const START_PARTS: readonly DataDirPart[] = [
  ...NIGHT_PARTS,
  {
    name: START_LOCK_FILE,
    kind: "file",
    refused: (path) =>
      `${path} is a directory: nor start keeps its lock in a file there; move what is in the way`,
  },
];
