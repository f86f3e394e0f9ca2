/**
 * What the workspace operations need: the engine services, by name. Each operation takes only
 * the ones it uses (a `Pick` of this), so the REST plugin, the console and the CLI can all pass
 * what they hold.
 */
import type { AgentDispatcher } from '../agentRuntime/dispatcher.js'
import type { ClockShape } from '../clock.js'
import type { Settings } from '../config.js'
import type { Presence } from '../presence.js'
import type { Recordings } from '../recordings/recordings.js'
import type { SecurityShape } from '../security/security.js'
import type { StorageShape } from '../storage/storage.js'
import type { TerminalHub } from '../terminals.js'

export interface OperationServices {
  readonly settings: Settings
  readonly clock: ClockShape
  readonly storage: StorageShape
  readonly security: SecurityShape
  readonly presence: Presence
  readonly terminals: TerminalHub
  readonly agents: AgentDispatcher
  /** Room recordings: start, stop, list, download, delete (core/recordings). */
  readonly recordings: Recordings
}
