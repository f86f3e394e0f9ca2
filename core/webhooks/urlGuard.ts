/**
 * The SSRF guard of webhook URLs. A URL must be https (http only with
 * `webhooks.allowPrivateNetworks`), carry no credentials, and its host must resolve only to
 * global unicast addresses: loopback, private, link-local, multicast, carrier-grade NAT,
 * unspecified, reserved and tunnelling ranges are refused unless the setting allows them.
 * It runs when an endpoint is created or changed, and again on every connection a delivery
 * opens, against the very addresses that connection will use (a host re-pointed at an internal
 * address after creation — DNS rebinding — is refused at delivery). Ranges come from ipaddr.js.
 */
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { ValidationFailed } from '../errors.js'

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
}

export const MAX_URL_LENGTH = 2048

/** A connection refused by the guard at delivery time (recorded on the attempt, retried later). */
export class AddressNotAllowed extends Error {
  readonly code = 'address_not_allowed'
}

/** The ipaddr.js range of an address (IPv4-mapped IPv6 judged as the IPv4 inside); `unicast` = global. */
export const addressRange = (address: string): string => ipaddr.process(address).range()

const invalid = (message: string) => new ValidationFailed({ field: 'url', message })

/** The host of a URL as a resolver or isIP wants it (IPv6 literals without brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1')

/** Checks that need no network: syntax, scheme, credentials, length. Throws ValidationFailed (field url). */
export const parseWebhookUrl = (raw: string, policy: UrlPolicy): URL => {
  if (raw.length > MAX_URL_LENGTH) throw invalid(`url: at most ${MAX_URL_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw invalid('url: not an absolute URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('url: must be https')
  if (url.protocol === 'http:' && !policy.allowPrivateNetworks) {
    throw invalid('url: must be https (http only with webhooks.allowPrivateNetworks)')
  }
  if (url.username !== '' || url.password !== '') throw invalid('url: must not carry a user name or password')
  if (url.hash !== '') throw invalid('url: must not carry a fragment')
  if (hostOf(url) === '') throw invalid('url: has no host')
  return url
}

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
        `${host} resolves to ${why}, which is not a public address (allowed only with webhooks.allowPrivateNetworks)`,
      )
    }
  }
  return addresses
}

/** Every check at create/update time: the URL itself, then where its host resolves now. */
export const checkWebhookUrl = async (raw: string, policy: UrlPolicy, resolve: HostResolver): Promise<URL> => {
  const url = parseWebhookUrl(raw, policy)
  try {
    await resolveAllowed(hostOf(url), policy, resolve)
  } catch (e) {
    if (e instanceof AddressNotAllowed) throw invalid(`url: ${e.message}`)
    throw invalid(`url: cannot resolve ${hostOf(url)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
  }
  return url
}
