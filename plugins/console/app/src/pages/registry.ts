/**
 * The pages of a workspace, in navigation order: a slug (its path under /w/{id}/), the link's
 * name, the permission its role needs (the server checks it anyway), and the component. A new
 * page is one more row here and one route module on the server.
 */
import type { FunctionComponent } from 'preact'
import type { Permission } from '../types'
import { AgentsPage } from './Agents'
import { ApiKeysPage } from './ApiKeys'
import { AuditPage } from './Audit'
import { ClientsPage } from './Clients'
import { DevicesPage } from './Devices'
import { MembersPage } from './Members'
import { RecordingsPage } from './Recordings'
import { RoomsPage } from './Rooms'
import { SettingsPage } from './Settings'
import type { PageProps } from './page'
import { UsagePage } from './Usage'
import { WebhooksPage } from './Webhooks'

export { can, type PageProps } from './page'

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
  { slug: 'recordings', label: 'Recordings', permission: 'read', component: RecordingsPage },
  { slug: 'usage', label: 'Usage', permission: 'read', component: UsagePage },
  { slug: 'webhooks', label: 'Webhooks', permission: 'operate', component: WebhooksPage },
  { slug: 'devices', label: 'Add device', permission: 'devicePasswords', component: DevicesPage },
  { slug: 'api-keys', label: 'API keys', permission: 'apiKeys', component: ApiKeysPage },
  { slug: 'members', label: 'Members', permission: 'administer', component: MembersPage },
  { slug: 'audit', label: 'Audit log', permission: 'administer', component: AuditPage },
  { slug: 'settings', label: 'Settings', permission: 'administer', component: SettingsPage },
]

