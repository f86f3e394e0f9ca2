/** What every workspace page is given, and the permission check pages use to show or hide actions. */
import type { SessionInfo, WorkspaceSummary } from '../api'
import type { LiveBus } from '../live'
import type { Permission } from '../types'

export interface PageProps {
  readonly session: SessionInfo
  readonly workspace: WorkspaceSummary
  /** Path segments after the page's slug (e.g. a client id). */
  readonly rest: ReadonlyArray<string>
  readonly live: LiveBus
  /** Read the session again (the workspace was renamed, deleted, left). */
  readonly onChanged: () => Promise<void>
}

export const can = (workspace: WorkspaceSummary, permission: Permission) => workspace.permissions.includes(permission)
