/**
 * The MQTT transport extension, registered by name in engine.config.ts. spec/mqtt.md describes
 * what a device sees: topics, payloads, QoS, codes.
 */
import { defineTransport } from '../../core/extension.js'
import { MqttTransport } from './transport.js'

export const mqttTransport = defineTransport('mqtt', (host) => new MqttTransport(host))

export { MqttTransport }
export { topicNamespace, type TopicNamespace } from './topics.js'
