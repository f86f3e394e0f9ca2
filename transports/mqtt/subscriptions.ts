/**
 * A terminal's subscriptions (filter → granted QoS) and what they mean for its two downlink
 * topics: whether downlink audio is sent at all, and at which QoS events are sent (-1 = not at all).
 * At CONNECT both downlink topics are subscribed for the terminal; SUBSCRIBE and UNSUBSCRIBE
 * change the set from there.
 */
import { filterMatches, type TopicNamespace } from './topics.js'

/** QoS granted for events (0 or 1; a QoS 2 request is granted 1). Audio is always sent at QoS 0. */
export const MAX_GRANTED_QOS = 1
export const DEFAULT_EVENTS_QOS = 1

export class Subscriptions {
  readonly filters: Map<string, number>
  /** Downlink audio is delivered (at QoS 0) while a filter matches its topic. */
  audio = false
  /** QoS of downlink events, or -1 while no filter matches their topic. */
  eventsQos = -1

  constructor(
    private readonly ns: TopicNamespace,
    filters?: ReadonlyMap<string, number>,
  ) {
    this.filters = new Map(filters ?? [
      [ns.downAudio, 0],
      [ns.downEvents, DEFAULT_EVENTS_QOS],
    ])
    this.recompute()
  }

  /** Add or replace a subscription; returns the granted QoS. */
  add(filter: string, requestedQos: number): number {
    const granted = Math.min(requestedQos, MAX_GRANTED_QOS)
    this.filters.set(filter, granted)
    this.recompute()
    return granted
  }

  /** Remove a subscription; false when there was none. */
  remove(filter: string): boolean {
    const had = this.filters.delete(filter)
    if (had) this.recompute()
    return had
  }

  private recompute(): void {
    let audio = false
    let events = -1
    for (const [filter, qos] of this.filters) {
      if (filterMatches(filter, this.ns.downAudio)) audio = true
      if (filterMatches(filter, this.ns.downEvents)) events = Math.max(events, qos)
    }
    this.audio = audio
    this.eventsQos = events
  }
}
