import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/** A self-signed certificate made at test time (no private key is checked in). */
export interface TestCert {
  key: string;
  cert: string;
  /** A PEM file of the certificate, for --ca-file. */
  certFile: string;
}

const run = promisify(execFile);

export async function makeSelfSignedCert(ips: string[]): Promise<TestCert> {
  const dir = await mkdtemp(join(tmpdir(), "nor-fleet-cert-"));
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  const san = ips.map((ip) => `IP:${ip}`).join(",");
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "2",
    "-subj",
    "/CN=public-records-check test fleet",
    "-addext",
    `subjectAltName=${san}`,
  ]);
  const [key, cert] = await Promise.all([readFile(keyFile, "utf8"), readFile(certFile, "utf8")]);
  await rm(keyFile);
  return { key, cert, certFile };
}
