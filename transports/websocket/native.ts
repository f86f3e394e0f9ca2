/**
 * Loading uWebSockets.js, native or not at all. The installed package
 * (@trufflesuite/uws-js-unofficial) silently falls back to a slow pure-JS implementation built on
 * `ws` when no prebuilt addon matches the platform and Node ABI (or when UWS_USE_FALLBACK is
 * set); that fallback has no SSLApp and would hide every performance figure. The signal: the
 * loader module `src/uws.js` requires `binaries/uws_<platform>_<arch>_<abi>.node` as its child
 * only when the native addon loaded, and only the native module exports SSLApp.
 */
import { createRequire } from 'node:module'
import type * as Uws from 'uWebSockets.js'

const require = createRequire(import.meta.url)

export type UwsModule = typeof Uws

/** Why the native addon is not in use, or null when it is. */
export const nativeProblem = (): string | null => {
  const id = require.resolve('uWebSockets.js')
  const uws = require(id) as Partial<UwsModule>
  const addon = require.cache[id]?.children.find((child) => child.id.endsWith('.node'))
  if (!addon) {
    return (
      `uWebSockets.js loaded its JavaScript fallback instead of the native addon ` +
      `(no binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node, or UWS_USE_FALLBACK is set)`
    )
  }
  if (typeof uws.SSLApp !== 'function') return 'uWebSockets.js native addon has no SSLApp'
  return null
}

/** The native uWebSockets.js module; throws when only the fallback is available. */
export const loadNativeUws = (): UwsModule => {
  const problem = nativeProblem()
  if (problem) throw new Error(`${problem}; refusing to start the WebSocket gateway`)
  return require('uWebSockets.js') as UwsModule
}
