/** The self-signed certificate made with node:crypto: what Node's and OpenSSL's parsers read in it, and a TLS handshake with it. */
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { once } from 'node:events'
import { connect, createServer } from 'node:tls'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { makeSelfSigned } from './selfSignedCert.js'

const DAY = 86_400_000

describe('makeSelfSigned', () => {
  it('is an X.509 v3 certificate signed by its own key, with the names and validity asked for', () => {
    const notBefore = new Date('2026-12-03T10:00:00Z')
    const notAfter = new Date(notBefore.getTime() + 825 * DAY)
    const { cert, key } = makeSelfSigned({ commonName: 'hark-local', dnsNames: ['localhost'], ipv4: ['127.0.0.1', '10.1.2.3'], notBefore, notAfter })
    const x = new X509Certificate(cert)
    expect(x.subject).toBe('CN=hark-local')
    expect(x.issuer).toBe('CN=hark-local')
    expect(x.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:10.1.2.3')
    expect(new Date(x.validFrom).getTime()).toBe(notBefore.getTime())
    expect(new Date(x.validTo).getTime()).toBe(notAfter.getTime())
    expect(x.verify(x.publicKey)).toBe(true)
    expect(x.checkPrivateKey(createPrivateKey(key))).toBe(true)
    expect(x.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1')
    expect(key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/)
  })

  it('writes a date from 2050 on as a GeneralizedTime (RFC 5280), which parses back to the same instant', () => {
    const notAfter = new Date('2051-06-30T23:59:59Z')
    const { cert } = makeSelfSigned({ commonName: 'x', dnsNames: [], ipv4: ['127.0.0.1'], notBefore: new Date('2049-12-31T00:00:00Z'), notAfter })
    const x = new X509Certificate(cert)
    expect(new Date(x.validTo).getTime()).toBe(notAfter.getTime())
    expect(new Date(x.validFrom).getTime()).toBe(new Date('2049-12-31T00:00:00Z').getTime())
  })

  it('serves a TLS handshake that a client checking the name 127.0.0.1 against it as its CA accepts', async () => {
    const now = Date.now()
    const { cert, key } = makeSelfSigned({ commonName: 'hark-local', dnsNames: ['localhost'], ipv4: ['127.0.0.1'], notBefore: new Date(now - DAY), notAfter: new Date(now + DAY) })
    const server = createServer({ cert, key }, (s) => s.end('hello'))
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    try {
      const client = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, ca: cert })
      const [data] = (await once(client, 'data')) as [Buffer]
      expect(client.authorized).toBe(true)
      expect(data.toString()).toBe('hello')
      client.destroy()
    } finally {
      server.close()
    }
  })
})
