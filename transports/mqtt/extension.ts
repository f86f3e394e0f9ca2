/**
 * The MQTT transport's descriptor: its name and settings. Its implementation is imported only
 * when an engine starts it (spec/extensions.md, Loading on start).
 */
import { defineTransport } from '../../core/extension.js'
import { mqttSettings } from './settings.js'

export const mqttTransport = defineTransport('mqtt', {
  settings: mqttSettings,
  load: async () => (await import('./transport.js')).MqttTransport,
})
