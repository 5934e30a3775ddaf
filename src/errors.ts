/**
 * Thrown only for bugs and broken configuration; expected outcomes of a night are tagged
 * unions, never exceptions. Match on `code`.
 */
export type ErrorCode =
  | "E_CONFIG"
  | "E_CATALOG"
  | "E_USAGE"
  | "E_STORE"
  | "E_ARCHIVE"
  | "E_INTERNAL";

export class NorError extends Error {
  override name = "NorError";
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export class ConfigError extends NorError {
  override name = "ConfigError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("E_CONFIG", message, options);
  }
}

export class UsageError extends NorError {
  override name = "UsageError";
  constructor(message: string) {
    super("E_USAGE", message);
  }
}
