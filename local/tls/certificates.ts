/**
 * A local CA and a server certificate for the network model's TLS endpoint.
 *
 * Clients trust the CA through NODE_EXTRA_CA_CERTS (read once at process start), so
 * verification stays on everywhere, exactly as in the cloud. EC P-256 keeps the
 * handshake's CPU share small next to the round trips the model charges.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { generate } from 'selfsigned';

export interface CertificatePaths {
  /** The CA to trust: NODE_EXTRA_CA_CERTS, or `ca` on an agent in-process. */
  readonly caCertPath: string;
  /** The server certificate (for localhost, 127.0.0.1 and ::1), signed by the CA. */
  readonly certPath: string;
  /** The server certificate's private key (mode 0600). */
  readonly keyPath: string;
}

const SERVER_NAMES = { dns: ['localhost'], ips: ['127.0.0.1', '::1'] } as const;
const VALIDITY_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A lock older than this was left by a crashed process; generation takes well under a second. */
const STALE_LOCK_MS = 30_000;

/** Where the lab keeps its certificates unless told otherwise: `.cache/tls` (git-ignored). */
export function defaultCertificateDir(): string {
  return resolve('.cache', 'tls');
}

function pathsIn(dir: string): CertificatePaths & { readonly caKeyPath: string } {
  return {
    caCertPath: join(dir, 'ca-cert.pem'),
    caKeyPath: join(dir, 'ca-key.pem'),
    certPath: join(dir, 'server-cert.pem'),
    keyPath: join(dir, 'server-key.pem'),
  };
}

/**
 * Returns certificates in `dir`, creating them once. Existing files are reused while
 * they still chain to the CA, name localhost/127.0.0.1/::1, match their key and are
 * valid for at least another day; anything else is replaced as a whole set.
 */
export async function ensureCertificates(dir: string): Promise<CertificatePaths> {
  const paths = pathsIn(dir);
  if (await isUsable(paths)) return publicPaths(paths);

  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Parallel processes (vitest workers, a host and a benchmark) must not interleave writes
  // and leave a server certificate next to a CA that did not sign it.
  const release = await lock(join(dir, '.lock'));
  try {
    if (!(await isUsable(paths))) await writeNewSet(paths);
  } finally {
    await release();
  }
  return publicPaths(paths);
}

function publicPaths(paths: CertificatePaths): CertificatePaths {
  return { caCertPath: paths.caCertPath, certPath: paths.certPath, keyPath: paths.keyPath };
}

async function isUsable(paths: CertificatePaths): Promise<boolean> {
  try {
    const [caPem, certPem, keyPem] = await Promise.all([
      readFile(paths.caCertPath, 'utf8'),
      readFile(paths.certPath, 'utf8'),
      readFile(paths.keyPath, 'utf8'),
    ]);
    const ca = new X509Certificate(caPem);
    const cert = new X509Certificate(certPem);
    const now = Date.now();
    const validFor = (c: X509Certificate): boolean =>
      Date.parse(c.validFrom) <= now && Date.parse(c.validTo) > now + DAY_MS;
    return (
      ca.ca &&
      validFor(ca) &&
      validFor(cert) &&
      cert.checkIssued(ca) &&
      cert.verify(ca.publicKey) &&
      cert.checkPrivateKey(createPrivateKey(keyPem)) &&
      SERVER_NAMES.dns.every((name) => cert.checkHost(name) !== undefined) &&
      SERVER_NAMES.ips.every((ip) => cert.checkIP(ip) !== undefined)
    );
  } catch {
    return false; // missing or unparsable: generate a fresh set
  }
}

async function writeNewSet(paths: CertificatePaths & { readonly caKeyPath: string }): Promise<void> {
  // Backdated a minute so a slightly skewed clock in another process still accepts it.
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + VALIDITY_DAYS * DAY_MS);
  const common = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notBeforeDate, notAfterDate } as const;

  const ca = await generate([{ name: 'commonName', value: 'serverless-db-latency-lab local CA' }], {
    ...common,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    ...common,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...SERVER_NAMES.dns.map((value) => ({ type: 2 as const, value })),
          ...SERVER_NAMES.ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });

  // Keys first and certificates last, each via rename, so a reader never sees a torn file.
  await writeAtomically(paths.caKeyPath, ca.private, 0o600);
  await writeAtomically(paths.keyPath, server.private, 0o600);
  await writeAtomically(paths.caCertPath, ca.cert, 0o644);
  await writeAtomically(paths.certPath, server.cert, 0o644);
}

async function writeAtomically(path: string, contents: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, contents, { mode });
  await chmod(tmp, mode); // the umask may have narrowed or the file may have existed
  await rename(tmp, path);
}

async function lock(lockDir: string): Promise<() => Promise<void>> {
  for (;;) {
    try {
      await mkdir(lockDir); // atomic: exactly one process succeeds
      return () => rm(lockDir, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lockDir).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await rm(lockDir, { recursive: true, force: true });
      else await sleep(50);
    }
  }
}
