/**
 * The MQTT transport extension, registered by name in engine.config.ts. spec/mqtt.md describes
 * what a device sees: topics, payloads, QoS, codes.
 */
import { MqttTransport } from './transport.js'

export { mqttTransport } from './extension.js'

export { MqttTransport }
export { mqttSettings, type MqttSettings } from './settings.js'
export { topicNamespace, type TopicNamespace } from './topics.js'
