/**
 * The pages of a workspace, in navigation order: a slug (its path under /w/{id}/), the link's
 * name, the permission its role needs (the server checks it anyway), and the component. A new
 * page (webhooks, later) is one more row here and one route module on the server.
 */
import type { FunctionComponent } from 'preact'
import type { SessionInfo, WorkspaceSummary } from '../api'
import type { LiveBus } from '../live'
import type { Permission } from '../types'
import { AgentsPage } from './Agents'
import { ApiKeysPage } from './ApiKeys'
import { AuditPage } from './Audit'
import { ClientsPage } from './Clients'
import { MembersPage } from './Members'
import { RoomsPage } from './Rooms'
import { SettingsPage } from './Settings'
import { UsagePage } from './Usage'

export interface PageProps {
  readonly session: SessionInfo
  readonly workspace: WorkspaceSummary
  /** Path segments after the page's slug (e.g. a client id). */
  readonly rest: ReadonlyArray<string>
  readonly live: LiveBus
  /** Read the session again (the workspace was renamed, deleted, left). */
  readonly onChanged: () => Promise<void>
}

export interface PageDefinition {
  readonly slug: string
  readonly label: string
  readonly permission: Permission
  readonly component: FunctionComponent<PageProps>
}

export const PAGES: ReadonlyArray<PageDefinition> = [
  { slug: 'clients', label: 'Clients', permission: 'read', component: ClientsPage },
  { slug: 'rooms', label: 'Rooms', permission: 'read', component: RoomsPage },
  { slug: 'agents', label: 'Agents', permission: 'read', component: AgentsPage },
  { slug: 'usage', label: 'Usage', permission: 'read', component: UsagePage },
  { slug: 'api-keys', label: 'API keys', permission: 'apiKeys', component: ApiKeysPage },
  { slug: 'members', label: 'Members', permission: 'administer', component: MembersPage },
  { slug: 'audit', label: 'Audit log', permission: 'administer', component: AuditPage },
  { slug: 'settings', label: 'Settings', permission: 'administer', component: SettingsPage },
]

export const can = (workspace: WorkspaceSummary, permission: Permission) => workspace.permissions.includes(permission)
