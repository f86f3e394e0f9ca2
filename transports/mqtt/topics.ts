/**
 * The client-scoped topic namespace and its access rules. Every terminal owns `hark/{clientId}/`:
 *
 *   hark/{clientId}/up/audio      terminal → server   uplink audio frames (QoS 0)
 *   hark/{clientId}/up/control    terminal → server   JSON control messages (QoS 0 or 1)
 *   hark/{clientId}/down/audio    server → terminal   downlink audio frames (always QoS 0)
 *   hark/{clientId}/down/events   server → terminal   JSON events (QoS 0 or 1)
 *
 * A terminal may publish to its two `up/` topics only and subscribe to filters inside its own
 * namespace only (wildcards included); spec/mqtt.md is the reference.
 */
import { MalformedPacket } from '../../core/extension.js'

export const TOPIC_ROOT = 'hark'

/**
 * A terminal's namespace. Only its client id is kept per connection — the identity's own string,
 * so a connection holds no topic string at all (four topic strings were ~190 B per idle device,
 * the prefix alone ~64 B); the topics and the prefix are made when asked for, on the control
 * plane only (an event, a SUBSCRIBE, the audio headers made once), and the checks of a PUBLISH
 * topic or a filter compare piece by piece without making one.
 */
export class TopicNamespace {
  constructor(readonly clientId: string) {}

  /** `hark/{clientId}/`: every topic and filter of the terminal starts with it. */
  get prefix(): string {
    return `${ROOT}${this.clientId}/`
  }
  get upAudio(): string {
    return `${this.prefix}${UP_AUDIO}`
  }
  get upControl(): string {
    return `${this.prefix}${UP_CONTROL}`
  }
  get downAudio(): string {
    return `${this.prefix}down/audio`
  }
  get downEvents(): string {
    return `${this.prefix}down/events`
  }

  isUpAudio(topic: string): boolean {
    return this.is(topic, UP_AUDIO)
  }
  isUpControl(topic: string): boolean {
    return this.is(topic, UP_CONTROL)
  }

  /** Whether a topic name or filter starts with the prefix (compared in place). */
  owns(topicOrFilter: string): boolean {
    const id = this.clientId
    const slash = ROOT.length + id.length
    return (
      topicOrFilter.length > slash &&
      topicOrFilter.charCodeAt(slash) === SLASH &&
      topicOrFilter.startsWith(ROOT) &&
      topicOrFilter.startsWith(id, ROOT.length)
    )
  }

  private is(topic: string, suffix: string): boolean {
    return topic.length === ROOT.length + this.clientId.length + 1 + suffix.length && topic.endsWith(suffix) && this.owns(topic)
  }
}

const ROOT = `${TOPIC_ROOT}/`
const SLASH = 0x2f
const UP_AUDIO = 'up/audio'
const UP_CONTROL = 'up/control'

export const topicNamespace = (clientId: string): TopicNamespace => new TopicNamespace(clientId)

/** A topic name a client may publish to: not empty, no wildcard characters [MQTT-3.3.2-2]. */
export const isValidTopicName = (topic: string): boolean =>
  topic.length > 0 && topic.indexOf('+') === -1 && topic.indexOf('#') === -1

/** A well-formed topic filter: `#` only as the whole last level, `+` only as a whole level [MQTT-4.7.1]. */
export const isValidTopicFilter = (filter: string): boolean => {
  if (filter.length === 0) return false
  const levels = filter.split('/')
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1)) return false
    if (level.includes('+') && level !== '+') return false
  }
  return true
}

/**
 * Why a filter in SUBSCRIBE or UNSUBSCRIBE is not a topic filter — empty [MQTT-4.7.3-1] or a
 * misplaced wildcard [MQTT-4.7.1-1, -2] — as the error that closes the connection (both
 * versions: 3.1.1 closes on any protocol violation [MQTT-4.8.0-1]); null when it is one.
 */
export const filterProblem = (filter: string): MalformedPacket | null => {
  if (filter.length === 0) return new MalformedPacket({ message: 'empty topic filter' })
  if (!isValidTopicFilter(filter)) return new MalformedPacket({ message: `"${filter}" is not a valid topic filter (misplaced wildcard)` })
  return null
}

/** Whether a topic name or filter stays inside the terminal's namespace. */
export const isInNamespace = (ns: TopicNamespace, topicOrFilter: string): boolean => ns.owns(topicOrFilter)

/** MQTT topic matching (4.7): does `filter` match `topic`? */
export const filterMatches = (filter: string, topic: string): boolean => {
  const f = filter.split('/')
  const t = topic.split('/')
  for (let i = 0; i < f.length; i++) {
    const level = f[i]!
    if (level === '#') return true
    if (i >= t.length) return false
    if (level !== '+' && level !== t[i]) return false
  }
  return f.length === t.length
}
