/**
 * xiaozhi-esp32 devices on Hark, unchanged (spec/xiaozhi.md): two extensions registered together —
 * the `xiaozhi` transport (the devices' WebSocket protocol on the TLS gateway, and optionally on a
 * plain LAN listener) and the `xiaozhi-ota` plugin (the OTA and activation endpoints on the REST
 * port). Register both: `extensions: [...xiaozhi]`, or `...defineXiaozhi({ plainPort: 8090 })`.
 */
import { definePlugin, defineTransport } from '../../core/extension.js'
import type { ConnectionLimits } from './connection.js'
import { otaRoutes } from './ota.js'
import { xiaozhiSettings, type XiaozhiSettings } from './settings.js'
import { XiaozhiTransport } from './transport.js'

export { XiaozhiTransport } from './transport.js'
export { DEFAULT_XIAOZHI_SETTINGS, type XiaozhiSettings } from './settings.js'

/** The xiaozhi transport and its OTA plugin, with settings (and per-connection limits) over the defaults. */
export const defineXiaozhi = (over: Partial<XiaozhiSettings> = {}, limits: Partial<ConnectionLimits> = {}) => {
  const settings = xiaozhiSettings(over)
  return [
    defineTransport('xiaozhi', (host) => new XiaozhiTransport(host, settings, limits)),
    definePlugin('xiaozhi-ota', (host) => ({ register: (app) => otaRoutes(host, settings)(app) })),
  ] as const
}

export const xiaozhi = defineXiaozhi()
