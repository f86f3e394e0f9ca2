/**
 * Bulk seeding of a Hark data dir for a bench run: N clients (optionally mapped to rooms of a
 * given size) and their tokens, through the same storage and ClientTokens calls the `hark client
 * create` and `hark token issue` commands make, opened the way the CLI opens a data dir.
 * Usage: node dist/bench/workers/seedHark.js --data DIR --workspace ID --clients N
 *          --tokens-per-client K --room-size S --out FILE
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { resolveSettings } from '../../core/config.js'
import { openDataDir } from '../../core/dataDir.js'

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    workspace: { type: 'string' },
    clients: { type: 'string' },
    'tokens-per-client': { type: 'string', default: '1' },
    'room-size': { type: 'string', default: '0' },
    out: { type: 'string' },
  },
})
const count = Number(values.clients)
const perClient = Number(values['tokens-per-client'])
const roomSize = Number(values['room-size'])
if (!values.data || !values.workspace || !values.out || !(count >= 0) || !(perClient >= 0) || !(roomSize >= 0)) {
  process.stderr.write('usage: seedHark --data DIR --workspace ID --clients N [--tokens-per-client K] [--room-size S] --out FILE\n')
  process.exit(2)
}

const op = openDataDir(resolveSettings({ env: process.env, flags: { dataDir: values.data } }))
try {
  const workspaceId = values.workspace
  const now = Date.now()
  const pad = (n: number, w: number) => String(n).padStart(w, '0')
  const records = Array.from({ length: count }, (_, i) => ({
    workspaceId,
    clientId: `bench-${pad(i + 1, 6)}`,
    name: null,
    kind: 'bench',
    room: roomSize > 0 ? `room-${pad(Math.floor(i / roomSize) + 1, 4)}` : null,
    ephemeral: false,
    expiresAt: null,
    tokensNotBefore: now,
    createdAt: now,
    updatedAt: now,
  }))
  op.storage.transaction(() => {
    for (const r of records) {
      op.storage.clients.insert(r)
      op.storage.feed.record({ kind: 'client.created', workspaceId, subject: r.clientId, at: now, client: r })
    }
  })
  const clients = []
  for (const r of records) {
    const tokens: string[] = []
    for (let k = 0; k < perClient; k++) tokens.push((await op.security.tokens.issue(workspaceId, r.clientId, null)).token)
    clients.push({ clientId: r.clientId, room: r.room, tokens })
  }
  writeFileSync(values.out, JSON.stringify({ workspaceId, clients }))
} finally {
  op.close()
}
