import { describe, expect, it } from 'vitest'
import { parseWebhookUrl, urlRule } from './urlGuard.js'

const closed = { allowPrivateNetworks: false }
const open = { allowPrivateNetworks: true }
const refusal = (raw: string, policy: { allowPrivateNetworks: boolean }): string => {
  try {
    parseWebhookUrl(raw, policy)
    return 'accepted'
  } catch (e) {
    return (e as { message: string }).message
  }
}

describe('webhook URL rules: the words say the rule applied', () => {
  it('asks for https, naming the setting that allows http, when private networks are not allowed', () => {
    expect(refusal('ftp://hooks.example/x', closed)).toBe('url: must be https')
    expect(refusal('http://hooks.example/x', closed)).toBe('url: must be https (http only with webhooks.allowPrivateNetworks)')
    expect(refusal('https://hooks.example/x', closed)).toBe('accepted')
    expect(urlRule(closed)).toBe('an https:// URL whose host resolves to public addresses only')
  })

  it('asks for https or http when they are allowed (http is accepted then)', () => {
    expect(refusal('ftp://hooks.example/x', open)).toBe('url: must be https or http (webhooks.allowPrivateNetworks is on)')
    expect(refusal('http://127.0.0.1:8080/x', open)).toBe('accepted')
    expect(urlRule(open)).toBe('an https:// or http:// URL, any host (webhooks.allowPrivateNetworks is on)')
  })

  it('says the same of what no policy allows', () => {
    for (const policy of [closed, open]) {
      expect(refusal('not a url', policy)).toBe('url: not an absolute URL')
      expect(refusal('https://user:pw@hooks.example/', policy)).toBe('url: must not carry a user name or password')
      expect(refusal('https://hooks.example/#x', policy)).toBe('url: must not carry a fragment')
    }
  })
})
