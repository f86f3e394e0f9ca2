/**
 * A terminal's subscriptions (filter → granted QoS) and what they mean for its two downlink
 * topics: whether downlink audio is sent at all, and at which QoS events are sent (-1 = not at all).
 * At CONNECT both downlink topics are subscribed for the terminal; SUBSCRIBE and UNSUBSCRIBE
 * change the set from there. Until one does, no map is kept (most devices never change it: a
 * Map of two entries was ~190 B per idle device); `filters` then reads as the two defaults.
 */
import { filterMatches, type TopicNamespace } from './topics.js'

/** QoS granted for events (0 or 1; a QoS 2 request is granted 1). Audio is always sent at QoS 0. */
export const MAX_GRANTED_QOS = 1
export const DEFAULT_EVENTS_QOS = 1

export class Subscriptions {
  /** The set once a SUBSCRIBE or UNSUBSCRIBE changed it (or a resumed session brought one); null = the defaults. */
  private changed: Map<string, number> | null
  /** Downlink audio is delivered (at QoS 0) while a filter matches its topic. */
  audio = true
  /** QoS of downlink events, or -1 while no filter matches their topic. */
  eventsQos = DEFAULT_EVENTS_QOS

  constructor(
    private readonly ns: TopicNamespace,
    filters?: ReadonlyMap<string, number>,
  ) {
    this.changed = filters === undefined ? null : new Map(filters)
    if (this.changed !== null) this.recompute(this.changed)
  }

  /** Every filter and its granted QoS (a new map of the defaults while nothing changed them). */
  get filters(): ReadonlyMap<string, number> {
    return this.changed ?? this.defaults()
  }

  /** Add or replace a subscription; returns the granted QoS. */
  add(filter: string, requestedQos: number): number {
    const granted = Math.min(requestedQos, MAX_GRANTED_QOS)
    const filters = (this.changed ??= this.defaults())
    filters.set(filter, granted)
    this.recompute(filters)
    return granted
  }

  /** Remove a subscription; false when there was none. */
  remove(filter: string): boolean {
    const filters = (this.changed ??= this.defaults())
    const had = filters.delete(filter)
    if (had) this.recompute(filters)
    return had
  }

  private defaults(): Map<string, number> {
    return new Map([
      [this.ns.downAudio, 0],
      [this.ns.downEvents, DEFAULT_EVENTS_QOS],
    ])
  }

  private recompute(filters: ReadonlyMap<string, number>): void {
    let audio = false
    let events = -1
    for (const [filter, qos] of filters) {
      if (filterMatches(filter, this.ns.downAudio)) audio = true
      if (filterMatches(filter, this.ns.downEvents)) events = Math.max(events, qos)
    }
    this.audio = audio
    this.eventsQos = events
  }
}
