/**
 * MQTT 5 property checks shared by the handlers. mqtt-packet turns a property that appears more
 * than once into an array; only User Property (and Subscription Identifier on PUBLISH) may repeat
 * [MQTT-2.2.2-2], so any other array is a protocol error.
 */

const REPEATABLE = new Set(['userProperties', 'subscriptionIdentifier'])

/** The name of a property that appears more than once though it may not, or null. */
export const duplicateProperty = (properties: object): string | null => {
  for (const [name, value] of Object.entries(properties)) {
    if (Array.isArray(value) && !REPEATABLE.has(name)) return name
  }
  return null
}
