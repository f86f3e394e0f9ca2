/**
 * The network half of the SSRF guard of webhook URLs (urlGuard.ts has the rest): a host must
 * resolve only to global unicast addresses; loopback, private, link-local, multicast,
 * carrier-grade NAT, unspecified, reserved and tunnelling ranges are refused unless
 * `webhooks.allowPrivateNetworks` allows them. Ranges come from ipaddr.js. Kept apart, with no
 * import of the engine's error table (and so of Effect), because the webhook delivery thread runs
 * it on every connection it opens and loads only what it needs.
 */
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Name resolution used by the guard; tests hand in their own to play DNS changes. */
export type HostResolver = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))

export interface UrlPolicy {
  readonly allowPrivateNetworks: boolean
  /** The setting that allows private addresses, as refusals name it (default `webhooks.allowPrivateNetworks`). */
  readonly allowedBy?: string
}

/** A connection refused by the guard at delivery time (recorded on the attempt, retried later). */
export class AddressNotAllowed extends Error {
  readonly code = 'address_not_allowed'
}

/** The ipaddr.js range of an address (IPv4-mapped IPv6 judged as the IPv4 inside); `unicast` = global. */
export const addressRange = (address: string): string => ipaddr.process(address).range()

/** The host of a URL as a resolver or isIP wants it (IPv6 literals without brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1')

/** Why an address may not be used, or null when it may. */
const refusal = (address: string, policy: UrlPolicy): string | null => {
  if (policy.allowPrivateNetworks) return null
  const range = addressRange(address)
  return range === 'unicast' ? null : `${address} (${range})`
}

/**
 * Resolve `host` and check every address it resolves to; returns them. Throws AddressNotAllowed
 * when one is refused (all or nothing: a host with one internal address is not half allowed).
 */
export const resolveAllowed = async (host: string, policy: UrlPolicy, resolve: HostResolver): Promise<ReadonlyArray<ResolvedAddress>> => {
  const family = isIP(host)
  const addresses: ReadonlyArray<ResolvedAddress> = family !== 0 ? [{ address: host, family: family === 6 ? 6 : 4 }] : await resolve(host)
  if (addresses.length === 0) throw new AddressNotAllowed(`${host} resolves to no address`)
  for (const a of addresses) {
    const why = refusal(a.address, policy)
    if (why !== null) {
      throw new AddressNotAllowed(
        `${host} resolves to ${why}, which is not a public address (allowed only with ${policy.allowedBy ?? 'webhooks.allowPrivateNetworks'})`,
      )
    }
  }
  return addresses
}
