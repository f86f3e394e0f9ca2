/**
 * What the cluster tests share: REST calls to a node with an API key (every cluster test), and for
 * those that run every node as its own `hark start` process (failures, webhooks), the workspace
 * seeded once into the shared database, as the CLI would write it.
 */
import { join } from 'node:path'
import { resolveSettings } from '../../core/config.js'
import { openDataDir } from '../../core/dataDir.js'

/**
 * A workspace named `name` with an API key and `clientIds` in room `lobby`, written into the
 * database at `storageUrl` through a data dir of its own under `root`; a token per client.
 */
export const seedSharedWorkspace = async (
  { root, storageUrl, masterKey, name, clientIds }: { root: string; storageUrl: string; masterKey: string; name: string; clientIds: readonly string[] },
) => {
  const data = openDataDir(
    resolveSettings({ file: { source: 'test', settings: { dataDir: join(root, 'cli'), storage: { url: storageUrl }, security: { masterKey } } } }),
  )
  try {
    const workspaceId = data.security.createWorkspace(name).workspaceId
    const apiKey = data.security.apiKeys.create(workspaceId, 'test').apiKey
    const tokens = new Map<string, string>()
    const now = Date.now()
    for (const id of clientIds) {
      data.storage.transaction(() =>
        data.storage.clients.insert({
          workspaceId, clientId: id, name: null, kind: null, room: 'lobby', ephemeral: false,
          expiresAt: null, tokensNotBefore: now - 1000, createdAt: now, updatedAt: now,
        }),
      )
      tokens.set(id, (await data.security.tokens.issue(workspaceId, id, null)).token)
    }
    return { workspaceId, apiKey, tokens }
  } finally {
    data.close()
  }
}

/** One call to a node's REST API (`/api/v1` on `restPort`) with `apiKey`: its status and JSON body (null for a 204). */
export const restCall = async <T>(restPort: number, apiKey: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`http://127.0.0.1:${restPort}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T }
}
