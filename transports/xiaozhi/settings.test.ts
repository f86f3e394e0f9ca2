import { describe, expect, it } from 'vitest'
import { DEFAULT_XIAOZHI_SETTINGS, xiaozhiSettings } from './settings.js'

describe('xiaozhi settings', () => {
  it('default to the documented values and take valid ones', () => {
    expect(xiaozhiSettings()).toEqual({ path: '/xiaozhi/v1/', plainPort: null, websocketUrl: null, autoAgent: true })
    expect(xiaozhiSettings({ plainPort: 8090, websocketUrl: 'wss://hark.example.com/xz/', path: '/xz/' })).toMatchObject({ plainPort: 8090, path: '/xz/' })
    expect(DEFAULT_XIAOZHI_SETTINGS.autoAgent).toBe(true)
  })

  it('refuse bad values, naming the setting', () => {
    expect(() => xiaozhiSettings({ path: 'xiaozhi' })).toThrow(/xiaozhi.path/)
    expect(() => xiaozhiSettings({ path: '/v1/connect' })).toThrow(/xiaozhi.path/)
    expect(() => xiaozhiSettings({ path: '/xiaozhi/ota/' })).toThrow(/xiaozhi.path/)
    expect(() => xiaozhiSettings({ plainPort: 70000 })).toThrow(/xiaozhi.plainPort/)
    expect(() => xiaozhiSettings({ websocketUrl: 'http://x/' })).toThrow(/xiaozhi.websocketUrl/)
  })
})
