/**
 * What each workspace role may do: the one table the console's server checks on every call
 * (spec/console.md prints it). A route names the permission it needs; a role either has it or
 * the call is refused with 403, whatever the page showed.
 */
import type { Role } from '../storage/memberships.js'

export { ROLES, type Role } from '../storage/memberships.js'

export type Permission = 'apiKeys' | 'devicePasswords' | 'administer' | 'operate' | 'read'

export const PERMISSIONS: { readonly [P in Permission]: { readonly roles: ReadonlyArray<Role>; readonly covers: string } } = {
  apiKeys: { roles: ['admin'], covers: 'API keys: create (value shown once), list, revoke' },
  devicePasswords: { roles: ['admin'], covers: 'device passwords: reveal, reset; adding a device by code (the device gets the client\'s device password)' },
  administer: {
    roles: ['admin'],
    covers: 'signing secret rotation; members, roles, invitations; workspace rename and delete; the audit log',
  },
  operate: {
    roles: ['admin', 'developer'],
    covers:
      'clients create, edit and delete, room moves, tokens, ephemeral clients (joining a room from the console), ' +
      'agents dispatch and stop, presets, room default agents, webhooks (reading them too: the read row does not name them), ' +
      'transcripts: their text and erasure',
  },
  read: { roles: ['admin', 'developer', 'viewer'], covers: 'read clients with online state, rooms, agents, presets, usage, transcripts without their text' },
}

export const allows = (role: Role, permission: Permission): boolean => PERMISSIONS[permission].roles.includes(role)

/** Every permission a role has, for the console to show or hide what the server would refuse anyway. */
export const permissionsOf = (role: Role): Permission[] =>
  (Object.keys(PERMISSIONS) as Permission[]).filter((p) => allows(role, p))

export const isRole = (value: unknown): value is Role => value === 'admin' || value === 'developer' || value === 'viewer'
