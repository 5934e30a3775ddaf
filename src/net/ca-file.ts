import { X509Certificate } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "../errors.js";

/** The largest file of certificates read (the system bundle is about 200 kB). */
const CA_FILE_MOST_BYTES = 16 * 1024 * 1024;

/** The PEM labels TLS reads a CA from (OpenSSL's): plain, TRUSTED (p11-kit bundles) and X509. */
const PEM_CERTIFICATE = /-----BEGIN ((?:TRUSTED |X509 )?CERTIFICATE)-----[^-]*-----END \1-----/g;
const PEM_BEGIN = /-----BEGIN (?:TRUSTED |X509 )?CERTIFICATE-----/g;

/**
 * The certificates of `--ca-file`, which the transport trusts beside Node's own CAs. TLS takes what it cannot read in a CA list without a
 * word, and every site that needed the CA would then fail its handshake, a "no" from each site
 * (P21) that is the operator's file's fault: so the file must hold PEM certificates, each one
 * readable, and nothing else that looks like a certificate.
 */
export function caCertificates(caFile: string): string[] {
  let text: string;
  try {
    // A file of certificates, never a device or a pipe that runs on (/dev/zero), nor one larger
    // than any bundle of CAs: refused before it is read.
    const s = statSync(caFile);
    if (!s.isFile())
      throw new Error(
        "not a regular file (a device, FIFO or directory), not a file of certificates",
      );
    if (s.size > CA_FILE_MOST_BYTES)
      throw new Error(`${s.size} bytes, more than a file of certificates ever holds (16 MiB)`);
    text = readFileSync(caFile, "utf8");
  } catch (err) {
    throw new ConfigError(`--ca-file ${caFile}: ${(err as Error).message}`, { cause: err });
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  const begins = text.match(PEM_BEGIN)?.length ?? 0;
  if (begins === 0) {
    throw new ConfigError(
      `--ca-file ${caFile}: no PEM certificate in it (a CA certificate starts "-----BEGIN CERTIFICATE-----")`,
    );
  }
  if (begins !== blocks.length) {
    throw new ConfigError(
      `--ca-file ${caFile}: ${begins - blocks.length} of its ${begins} certificates has no "-----END …CERTIFICATE-----" line to match its BEGIN`,
    );
  }
  blocks.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new ConfigError(
        `--ca-file ${caFile}: certificate ${i + 1} of ${blocks.length} cannot be read (${(err as Error).message})`,
        { cause: err },
      );
    }
  });
  return blocks;
}
