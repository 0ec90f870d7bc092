// Test CA and a 127.0.0.1 server certificate for the media host, minted with the openssl CLI once per process.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface MediaCerts {
  caPem: string;
  certPem: string;
  keyPem: string;
}

let cached: MediaCerts | null = null;

/** Node refuses an IP host without an IP SAN, even with the CA trusted — hence IP:127.0.0.1. */
export function mediaCerts(): MediaCerts {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'simnet-ca-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650', '-subj', '/CN=simnet test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
    run(['req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=127.0.0.1']);
    writeFileSync(join(dir, 'ext.cnf'),
      'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n');
    run(['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '3650', '-extfile', 'ext.cnf']);
    cached = {
      caPem: readFileSync(join(dir, 'ca.pem'), 'utf8'),
      certPem: readFileSync(join(dir, 'leaf.pem'), 'utf8'),
      keyPem: readFileSync(join(dir, 'leaf.key'), 'utf8'),
    };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
