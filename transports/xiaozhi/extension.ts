/**
 * The xiaozhi extensions' descriptors (see index.ts): the `xiaozhi` transport and the
 * `xiaozhi-ota` plugin, with their settings. Their implementations are imported only when an
 * engine starts them (spec/extensions.md, Loading on start).
 */
import { definePlugin, defineTransport, type Resolve } from '../../core/extension.js'
import { xiaozhiSettings } from './settings.js'

export const xiaozhiTransport = defineTransport('xiaozhi', {
  settings: xiaozhiSettings,
  load: async () => (await import('./transport.js')).XiaozhiTransport,
})

export const xiaozhiOta = definePlugin('xiaozhi-ota', {
  load: async () => {
    const { XiaozhiOta } = await import('./ota.js')
    return (resolve: Resolve) => {
      try {
        resolve(xiaozhiSettings.key)
      } catch {
        throw new Error('the xiaozhi-ota plugin reads the settings of the xiaozhi transport: register both (extensions: [...xiaozhi])')
      }
      return resolve(XiaozhiOta)
    }
  },
})

/** The transport and its OTA plugin. */
export const xiaozhi = [xiaozhiTransport, xiaozhiOta] as const
