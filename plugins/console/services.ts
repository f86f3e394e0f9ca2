/**
 * What the console's server and its routes are given: the engine services the workspace
 * operations need (core/operations), the people domain, its own sessions and sign-in throttle,
 * its settings, the live feed, and the engine's listeners (a browser joining a room over WebRTC
 * is told the gateway's port), and the registered extensions (the Webhooks page uses the webhooks
 * plugin's endpoints service when that plugin is there).
 */
import type { Registry } from 'prom-client'
import type { Listeners, Logger, RegisteredExtensions, TlsMaterial } from '../../core/extension.js'
import type { OperationServices } from '../../core/operations/services.js'
import type { People } from '../../core/people/people.js'
import type { LiveFeed } from './live.js'
import type { ConsoleSessions } from './sessions.js'
import type { ConsoleSettings } from './settings.js'
import type { SignInThrottle } from './throttle.js'

export interface ConsoleServices extends OperationServices {
  readonly console: ConsoleSettings
  readonly log: Logger
  readonly metrics: Registry
  readonly tls: TlsMaterial
  readonly listeners: Listeners
  /** Other extensions the console offers pages for when they are registered (the webhooks plugin). */
  readonly extensions: RegisteredExtensions
  readonly people: People
  readonly sessions: ConsoleSessions
  readonly throttle: SignInThrottle
  readonly live: LiveFeed
}
