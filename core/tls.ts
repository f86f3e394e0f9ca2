/**
 * TLS material for the gateway (and MQTT over TLS): the configured PEM pair, or a self-signed
 * certificate generated once into the data dir for local use.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as Context from 'effect/Context'
import { ConfigError } from './configError.js'
import { makeSelfSigned } from './selfSignedCert.js'

export interface TlsMaterial {
  readonly cert: string
  readonly key: string
  readonly certFile: string
  readonly keyFile: string
  readonly selfSigned: boolean
}

export class Tls extends Context.Service<Tls, TlsMaterial>()('hark/Tls') {}

/** A PEM file named by a setting; one that cannot be read is a config error naming the setting. */
const readSetting = (setting: string, file: string): string => {
  try {
    return readFileSync(file, 'utf8')
  } catch (e) {
    throw new ConfigError(setting, 'settings', `cannot read ${file}: ${(e as Error).message}`)
  }
}

export const loadTls = async (opts: {
  certFile: string | null
  keyFile: string | null
  dataDir: string
  host: string
}): Promise<TlsMaterial> => {
  if (opts.certFile || opts.keyFile) {
    if (!opts.certFile || !opts.keyFile) {
      throw new ConfigError(opts.certFile ? 'tls.keyFile' : 'tls.certFile', 'settings', 'tls.certFile and tls.keyFile must be set together')
    }
    return {
      cert: readSetting('tls.certFile', opts.certFile),
      key: readSetting('tls.keyFile', opts.keyFile),
      certFile: opts.certFile,
      keyFile: opts.keyFile,
      selfSigned: false,
    }
  }
  const certFile = join(opts.dataDir, 'tls-self-signed.crt')
  const keyFile = join(opts.dataDir, 'tls-self-signed.key')
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    const now = Date.now()
    const pems = makeSelfSigned({
      commonName: 'hark-local',
      dnsNames: ['localhost'],
      ipv4: ['127.0.0.1', ...(opts.host !== '127.0.0.1' && /^[\d.]+$/.test(opts.host) ? [opts.host] : [])],
      notBefore: new Date(now),
      notAfter: new Date(now + 825 * 86_400_000),
    })
    writeFileSync(keyFile, pems.key, { mode: 0o600 })
    writeFileSync(certFile, pems.cert)
  }
  return {
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
    certFile,
    keyFile,
    selfSigned: true,
  }
}
