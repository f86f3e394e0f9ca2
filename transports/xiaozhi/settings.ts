/**
 * The xiaozhi transport's settings (spec/xiaozhi.md, Settings), declared once here: their defaults,
 * their checks, `HARK_XIAOZHI_*` variables, `--xiaozhi-*` flags and the README's table come from
 * this declaration. The OTA plugin reads the same section (it is registered with the transport).
 */
import * as Schema from 'effect/Schema'
import { defineSettings, Port, setting } from '../../core/extension.js'

/** The device path on the gateway: absolute, plain characters, clear of Hark's own paths. */
const DevicePath = Schema.String.check(
  Schema.makeFilter((s: string) =>
    !/^\/[A-Za-z0-9._~\-/]{0,127}$/.test(s)
      ? 'an absolute path of letters, digits and "._~-/"'
      : s.startsWith('/v1/') || s.startsWith('/xiaozhi/ota')
        ? 'not under /v1/ (terminal protocol v1) or /xiaozhi/ota (the OTA endpoint)'
        : true,
  ),
)

/** A ws:// or wss:// URL with a path (what the firmware's WebSocket client takes). */
const WebSocketUrl = Schema.String.check(
  Schema.makeFilter((s: string) => (/^wss?:\/\/[^\s/]+\/\S*$/.test(s) ? true : 'a ws:// or wss:// URL with a path')),
)

export const xiaozhiSettings = defineSettings('xiaozhi', {
  path: setting(DevicePath, '/xiaozhi/v1/', "the devices' WebSocket path, on the TLS gateway and on the plain listener"),
  plainPort: setting(
    Schema.NullOr(Port),
    null,
    'plain ws:// listener for devices on a LAN (firmware trusts only real certificates); null: off',
  ),
  websocketUrl: setting(
    Schema.NullOr(WebSocketUrl),
    null,
    "the WebSocket URL the OTA answer gives devices; null: built from the request's Host and the listener",
  ),
  autoAgent: setting(
    Schema.Boolean,
    true,
    "a room with a device and no agent gets the room's default agent, else the platform default (agents.defaultProvider)",
  ),
})

export type XiaozhiSettings = typeof xiaozhiSettings.Type
