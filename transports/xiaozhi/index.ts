/**
 * xiaozhi-esp32 devices on Hark, unchanged (spec/xiaozhi.md): two extensions registered together —
 * the `xiaozhi` transport (the devices' WebSocket protocol on the TLS gateway, and optionally on a
 * plain LAN listener), which declares the `xiaozhi.*` settings, and the `xiaozhi-ota` plugin (the
 * OTA and activation endpoints on the REST port), which reads them. Register both:
 * `extensions: [websocketTransport, ...xiaozhi]`, and set `xiaozhi: { plainPort: 8090 }` in the
 * config (or `HARK_XIAOZHI_PLAIN_PORT`, `--xiaozhi-plain-port`).
 */
import { defineTransport } from '../../core/extension.js'
import type { ConnectionLimits } from './connection.js'
import { xiaozhiOta } from './extension.js'
import { xiaozhiSettings } from './settings.js'
import { XiaozhiTransport } from './transport.js'

export { XiaozhiTransport } from './transport.js'
export { XiaozhiOta } from './ota.js'
export { xiaozhiSettings, type XiaozhiSettings } from './settings.js'

export { xiaozhi, xiaozhiOta, xiaozhiTransport } from './extension.js'

/** The transport (and its plugin) with other per-connection limits (tests, benchmarks, embedders). */
export const defineXiaozhi = (limits: Partial<ConnectionLimits> = {}) =>
  [
    defineTransport('xiaozhi', {
      settings: xiaozhiSettings,
      create: (resolve) => resolve(XiaozhiTransport).withLimits(limits),
    }),
    xiaozhiOta,
  ] as const
