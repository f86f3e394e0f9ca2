/**
 * Control across nodes (spec/cluster.md, Control across nodes): committed storage changes go out
 * on `hark.change` and come in as the rows a change poll would read (moves, revocations, deletion,
 * device-password resets, the security caches); a session admitted here goes out on
 * `hark.session`, and an older session of the same client here closes when another node admits
 * a newer one.
 */
import type { ClusterAgentHooks } from '../../core/cluster/cluster.js'
import { SessionReplaced } from '../../core/errors.js'
import { asChangeRow, changeRow } from '../../core/storage/changes.js'
import type { Link } from './link.js'
import type { Peers } from './peers.js'
import { S, type SessionMessage } from './protocol.js'

export class Control {
  constructor(
    private readonly link: Link,
    private readonly peers: Peers,
    /** The engine's agent side (room settings changed on another node), once set. */
    private readonly hooks: () => ClusterAgentHooks | null,
  ) {}

  /** Announce this node's sessions and committed changes. Returns the unsubscribe functions. */
  announce(): Array<() => void> {
    const { link } = this
    const { hub, storage } = link.o
    return [
      hub.on('session.opened', ({ session: s }) => {
        link.publish(S.session, { node: link.nodeId, workspaceId: s.workspaceId, clientId: s.clientId, sessionId: s.sessionId, connectedAt: s.connectedAt } satisfies SessionMessage)
      }),
      storage.feed.onAny((change) => {
        // This node's writes, and those of a process beside it (the CLI); not another node's (it says them).
        if (change.origin !== storage.origin && this.peers.isPeerOrigin(change.origin)) return
        // As its row: what it carries (a client's room as written …) travels as the change log holds it.
        link.publish(S.change, { node: link.nodeId, change: changeRow(change) })
      }),
    ]
  }

  /** `hark.session`: the newer session of a client stays, wherever it is. */
  sessionIn(m: SessionMessage): void {
    const { link } = this
    if (m.node === link.nodeId) return
    const { hub } = link.o
    const session = hub.session(m.workspaceId, m.clientId)
    if (!session || session.sessionId === m.sessionId) return
    const mine = hub.presenceEntry(m.workspaceId, m.clientId)
    // The newer one stays: the one here goes when it connected first (ties: the smaller id goes).
    if (mine && (mine.connectedAt < m.connectedAt || (mine.connectedAt === m.connectedAt && mine.sessionId < m.sessionId))) {
      session.close(new SessionReplaced({ message: 'replaced by a newer session of the same client' }))
    }
  }

  /** `hark.change`: another node's committed change, applied as this node applies its own. */
  changeIn(m: { node: string; change: unknown }): void {
    const { link } = this
    if (m.node === link.nodeId) return
    const { security, storage, hub } = link.o
    const row = asChangeRow(m.change)
    if (row === null) return
    if (row.workspaceId && row.subject && row.kind.startsWith('client.')) storage.clients.invalidate(row.workspaceId, row.subject)
    const change = storage.feed.read(row)
    if (change === null) return
    if (change.kind === 'apikey.revoked') security.apiKeys.forget(change.subject)
    else if (change.kind === 'secret.rotated') security.keyring.invalidate(change.workspaceId)
    else if (change.kind === 'token.revoked') security.revocations.add(change.subject)
    else if (change.kind === 'room.updated') this.hooks()?.roomSettingsChanged(change.workspaceId, change.subject)
    hub.applyChange(change)
  }
}
