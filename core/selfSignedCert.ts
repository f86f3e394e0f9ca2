/**
 * A self-signed X.509 v3 certificate made with node:crypto alone: an EC P-256 key, ECDSA with
 * SHA-256, subject = issuer = CN=hark-local, one extension (subjectAltName: DNS names and IPv4
 * addresses). The DER is written here (RFC 5280, section 4.1) because the engine needs one
 * shape of certificate, and a general X.509 library (selfsigned's @peculiar/x509 stack) cost
 * the engine's heap ~3 MB for the process's life (issue 39 item 3, a lighter process).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto'

export interface SelfSignedOptions {
  readonly commonName: string
  readonly dnsNames: ReadonlyArray<string>
  readonly ipv4: ReadonlyArray<string>
  readonly notBefore: Date
  readonly notAfter: Date
}

export interface SelfSignedPems {
  /** The certificate, PEM. */
  readonly cert: string
  /** Its private key, PKCS#8 PEM. */
  readonly key: string
}

/** One DER element: tag, definite length, contents. */
const der = (tag: number, ...contents: Buffer[]): Buffer => {
  const body = Buffer.concat(contents)
  const n = body.length
  if (n > 0xffff) throw new Error('DER element too long for this encoder')
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff])
  return Buffer.concat([Buffer.from([tag]), length, body])
}

const sequence = (...items: Buffer[]) => der(0x30, ...items)

/** An OBJECT IDENTIFIER from its dotted form. */
const oid = (dotted: string): Buffer => {
  const [a, b, ...rest] = dotted.split('.').map(Number)
  const bytes = [a! * 40 + b!]
  for (const arc of rest) {
    const groups = [arc & 0x7f]
    for (let v = arc >>> 7; v > 0; v >>>= 7) groups.unshift((v & 0x7f) | 0x80)
    bytes.push(...groups)
  }
  return der(0x06, Buffer.from(bytes))
}

/** A UTCTime before 2050, a GeneralizedTime from then on (RFC 5280, 4.1.2.5), to the second. */
const time = (d: Date): Buffer => {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(s.slice(2), 'ascii')) : der(0x18, Buffer.from(s, 'ascii'))
}

const name = (commonName: string) => sequence(der(0x31, sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(commonName, 'utf8')))))

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'))

const pem = (label: string, body: Buffer) =>
  `-----BEGIN ${label}-----\n${body.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END ${label}-----\n`

export const makeSelfSigned = (o: SelfSignedOptions): SelfSignedPems => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  // A positive serial of 16 random bytes (its top bit cleared; RFC 5280 allows up to 20 octets).
  const serial = randomBytes(16)
  serial[0] = (serial[0]! & 0x7f) | 0x01
  const altNames = sequence(
    ...o.dnsNames.map((n) => der(0x82, Buffer.from(n, 'ascii'))),
    ...o.ipv4.map((ip) => der(0x87, Buffer.from(ip.split('.').map(Number)))),
  )
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))), // version v3
    der(0x02, serial),
    ECDSA_WITH_SHA256,
    name(o.commonName),
    sequence(time(o.notBefore), time(o.notAfter)),
    name(o.commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, sequence(sequence(oid('2.5.29.17'), der(0x04, altNames)))),
  )
  // ECDSA's signature comes DER-encoded (Ecdsa-Sig-Value), as the BIT STRING of the certificate holds it.
  const signature = sign('sha256', tbs, privateKey)
  const cert = sequence(tbs, ECDSA_WITH_SHA256, der(0x03, Buffer.from([0]), signature))
  return { cert: pem('CERTIFICATE', cert), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }
}
