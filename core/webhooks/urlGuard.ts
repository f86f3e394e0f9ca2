/**
 * The SSRF guard of webhook URLs. A URL must be https (http only with
 * `webhooks.allowPrivateNetworks`), carry no credentials, and its host must resolve only to
 * global unicast addresses: loopback, private, link-local, multicast, carrier-grade NAT,
 * unspecified, reserved and tunnelling ranges are refused unless the setting allows them.
 * It runs when an endpoint is created or changed, and again on every connection a delivery
 * opens, against the very addresses that connection will use (a host re-pointed at an internal
 * address after creation — DNS rebinding — is refused at delivery). The address checks are in
 * addressGuard.ts (re-exported here).
 */
import { ValidationFailed } from '../errors.js'
import { AddressNotAllowed, hostOf, resolveAllowed, type HostResolver, type UrlPolicy } from './addressGuard.js'

export * from './addressGuard.js'

export const MAX_URL_LENGTH = 2048

const invalid = (message: string) => new ValidationFailed({ field: 'url', message })

/** The rule in words, as the policy applies it (the console's hint; refusals use the same terms). */
export const urlRule = (policy: UrlPolicy): string =>
  policy.allowPrivateNetworks
    ? 'an https:// or http:// URL, any host (webhooks.allowPrivateNetworks is on)'
    : 'an https:// URL whose host resolves to public addresses only'

/** Checks that need no network: syntax, scheme, credentials, length. Throws ValidationFailed (field url). */
export const parseWebhookUrl = (raw: string, policy: UrlPolicy): URL => {
  if (raw.length > MAX_URL_LENGTH) throw invalid(`url: at most ${MAX_URL_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw invalid('url: not an absolute URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid(policy.allowPrivateNetworks ? 'url: must be https or http (webhooks.allowPrivateNetworks is on)' : 'url: must be https')
  }
  if (url.protocol === 'http:' && !policy.allowPrivateNetworks) {
    throw invalid('url: must be https (http only with webhooks.allowPrivateNetworks)')
  }
  if (url.username !== '' || url.password !== '') throw invalid('url: must not carry a user name or password')
  if (url.hash !== '') throw invalid('url: must not carry a fragment')
  if (hostOf(url) === '') throw invalid('url: has no host')
  return url
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
