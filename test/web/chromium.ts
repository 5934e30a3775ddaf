/** The browser the browser tests drive: Debian's chromium (never a downloaded one). */
export const CHROMIUM = "/usr/bin/chromium";
/** Flags for a quiet, offline, throwaway browser: nothing it does leaves the machine. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
