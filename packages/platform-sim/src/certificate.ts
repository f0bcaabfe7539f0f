import { generate } from 'selfsigned';

export interface Certificate {
  /** PEM of the certificate; clients trust it as their CA. */
  cert: string;
  /** PEM of the private key. */
  key: string;
}

/** A fresh self-signed server certificate for the loopback names. */
export async function createCertificate(): Promise<Certificate> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + 365 * 24 * 60 * 60 * 1000);
  // An EC key is made in milliseconds, where RSA would slow down every test suite's start.
  const pems = await generate(
    [
      { name: 'commonName', value: 'localhost' },
      { name: 'organizationName', value: 'Faultline platform simulator' },
    ],
    {
      keyType: 'ec',
      algorithm: 'sha256',
      notBeforeDate,
      notAfterDate,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    },
  );
  return { cert: pems.cert, key: pems.private };
}
