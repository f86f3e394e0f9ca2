/**
 * Where WebRTC peers live on the network, from the `webrtc.*` settings: which addresses are
 * offered as ICE host candidates (and which one sockets bind to), the public address announced
 * instead of them behind a 1:1 NAT, and the UDP port range. Bad values stop the engine at start
 * with a ConfigError naming the setting.
 */
import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { ConfigError } from '../../core/extension.js'
import type { WebRtcSettings } from './settings.js'

export interface PeerNetwork {
  /** Host candidate addresses, in order. */
  readonly hostAddresses: ReadonlyArray<string>
  /** Bind address per family when exactly one host address of that family is configured. */
  readonly bindAddresses: { readonly udp4?: string; readonly udp6?: string }
  readonly announcedAddress: string | null
  /** Inclusive UDP port range, or null for any free port. */
  readonly portRange: readonly [number, number] | null
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]'])

const list = (value: string | null): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)

const interfaceAddresses = (): string[] =>
  Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((e) => e.family === 'IPv4' && !e.internal)
    .map((e) => e.address)

/** Host candidate addresses: the setting, else `host` when it is one address, else every interface. */
const hostAddressesOf = (host: string, webrtc: WebRtcSettings): string[] => {
  const configured = list(webrtc.hostAddresses)
  if (configured.length > 0) {
    for (const address of configured) {
      if (isIP(address) === 0) throw new ConfigError('webrtc.hostAddresses', 'settings', `"${address}" is not an IP address`)
    }
    return [...new Set(configured)]
  }
  if (WILDCARDS.has(host)) {
    const found = interfaceAddresses()
    return found.length > 0 ? found : ['127.0.0.1']
  }
  if (host === 'localhost') return ['127.0.0.1']
  if (isIP(host) !== 0) return [host]
  throw new ConfigError('webrtc.hostAddresses', 'settings', `host "${host}" is a name, not an address: set webrtc.hostAddresses`)
}

export const peerNetwork = (host: string, webrtc: WebRtcSettings): PeerNetwork => {
  const { announcedAddress, portMin, portMax } = webrtc
  const hostAddresses = hostAddressesOf(host, webrtc)
  if (announcedAddress !== null && isIP(announcedAddress) === 0) {
    throw new ConfigError('webrtc.announcedAddress', 'settings', `"${announcedAddress}" is not an IP address`)
  }
  let portRange: readonly [number, number] | null = null
  if (portMin !== 0 || portMax !== 0) {
    if (portMin < 1024 || portMax <= portMin) {
      throw new ConfigError('webrtc.portMin', 'settings', `the UDP port range ${portMin}–${portMax} needs 1024 ≤ portMin < portMax (or both 0)`)
    }
    portRange = [portMin, portMax]
  }
  const v4 = hostAddresses.filter((a) => isIP(a) === 4)
  const v6 = hostAddresses.filter((a) => isIP(a) === 6)
  return {
    hostAddresses,
    bindAddresses: { ...(v4.length === 1 ? { udp4: v4[0] } : {}), ...(v6.length === 1 ? { udp6: v6[0] } : {}) },
    announcedAddress,
    portRange,
  }
}
