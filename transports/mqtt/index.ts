/**
 * The MQTT transport extension, registered by name in engine.config.ts. spec/mqtt.md describes
 * what a device sees: topics, payloads, QoS, codes.
 */
import { defineTransport } from '../../core/index.js'
import { mqttSettings } from './settings.js'
import { MqttTransport } from './transport.js'

export const mqttTransport = defineTransport('mqtt', { settings: mqttSettings, create: MqttTransport })

export { MqttTransport }
export { mqttSettings, type MqttSettings } from './settings.js'
export { topicNamespace, type TopicNamespace } from './topics.js'
