/**
 * The `xiaozhi.*` settings (spec/xiaozhi.md, Settings): their defaults and their checks.
 */
import { ValidationFailed } from '../../core/errors.js'

export interface XiaozhiSettings {
  /** Path of the devices' WebSocket endpoint, on the TLS gateway and on the plain listener. */
  readonly path: string
  /** Port of a plain `ws://` listener for devices on a LAN; null: none (the default). */
  readonly plainPort: number | null
  /** The WebSocket URL the OTA answer gives devices; null: built from the request's host and the listener. */
  readonly websocketUrl: string | null
  /** A device whose room has no agent gets the room default agent, or else the platform default. */
  readonly autoAgent: boolean
}

export const DEFAULT_XIAOZHI_SETTINGS: XiaozhiSettings = {
  path: '/xiaozhi/v1/',
  plainPort: null,
  websocketUrl: null,
  autoAgent: true,
}

const PATH = /^\/[A-Za-z0-9._~\-/]{0,127}$/

/** The settings with `over` laid on the defaults, checked. */
export const xiaozhiSettings = (over: Partial<XiaozhiSettings> = {}): XiaozhiSettings => {
  const s = { ...DEFAULT_XIAOZHI_SETTINGS, ...over }
  if (!PATH.test(s.path) || s.path.startsWith('/v1/') || s.path.startsWith('/xiaozhi/ota')) {
    throw new ValidationFailed({ field: 'xiaozhi.path', message: 'xiaozhi.path: an absolute path (letters, digits, "._~-/"), not under /v1/ or /xiaozhi/ota' })
  }
  if (s.plainPort !== null && (!Number.isInteger(s.plainPort) || s.plainPort < 0 || s.plainPort > 65535)) {
    throw new ValidationFailed({ field: 'xiaozhi.plainPort', message: 'xiaozhi.plainPort: a port (0-65535) or null' })
  }
  if (s.websocketUrl !== null && !/^wss?:\/\/[^\s/]+\/[^\s]*$/.test(s.websocketUrl)) {
    throw new ValidationFailed({ field: 'xiaozhi.websocketUrl', message: 'xiaozhi.websocketUrl: a ws:// or wss:// URL with a path, or null' })
  }
  return s
}
