/**
 * The Transport contract: an adapter that accepts terminals over some protocol (WebSocket,
 * MQTT, WebRTC…), authenticates them through the security service, and feeds their audio into rooms.
 */
import * as Data from 'effect/Data'

export interface Transport {
  /** Bind listeners; resolve once they accept connections (report ports with services.listeners). */
  start(): Promise<void>
  /** Close listeners and every session with a server-shutting-down reason. */
  stop(): Promise<void>
  /**
   * Stop accepting connections (close the listening sockets; refuse upgrades still in flight),
   * leaving those open to `stop`. The engine calls it first when it stops, before any terminal hears
   * `session.closing`: a terminal that reconnects at once is refused here at once (or, under
   * `hark start --nodes N`, reaches another process) instead of waiting in a queue this process
   * will never serve and being reset when it closes.
   */
  stopAccepting?(): void
}

const bindReasons: Readonly<Record<string, string>> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'address not available on this machine',
  ENOTFOUND: 'no such host',
}

/** Failures of the host, not of the port: another port would not help. */
const hostCodes = new Set(['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME'])

/**
 * A listener could not bind. Names the listener and the setting holding its port, so whoever
 * started the engine can say how to change it (the CLI names the flag and the variable).
 */
export class ListenError extends Data.TaggedError('ListenError')<{
  /** The listener's name, as reported to listeners.listening ("rest", "gateway", "mqtt"…). */
  readonly listener: string
  readonly host: string
  readonly port: number
  /** Path of the setting that holds this port ("rest.port"). */
  readonly setting: string
  /** The host cannot be bound (not an address of this machine, or no such name): `host` is wrong, not the port. */
  readonly hostProblem: boolean
  readonly message: string
  readonly cause: unknown
}> {
  constructor(listener: string, host: string, port: number, setting: string, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code
    const reason = typeof code === 'string' && bindReasons[code] ? bindReasons[code] : String((cause as Error)?.message ?? cause)
    super({
      listener, host, port, setting, cause,
      hostProblem: typeof code === 'string' && hostCodes.has(code),
      message: `cannot listen on ${host}:${port} (${listener}): ${reason}`,
    })
  }
}
