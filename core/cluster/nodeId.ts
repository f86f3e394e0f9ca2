/**
 * A node's id in the cluster: `cluster.nodeId` when set, else generated once and kept in
 * `<dataDir>/node-id`, so a node restarted on the same data dir is the same node.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomBase62 } from '../ids.js'

const VALID = /^[A-Za-z0-9_-]{1,64}$/

export const nodeIdOf = (configured: string | null, dataDir: string): string => {
  if (configured !== null) return configured
  const file = join(dataDir, 'node-id')
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim()
    if (!VALID.test(kept)) throw new Error(`${file} does not hold a node id ([A-Za-z0-9_-], at most 64): remove it or set cluster.nodeId`)
    return kept
  }
  const id = `node_${randomBase62(12)}`
  writeFileSync(file, `${id}\n`, { mode: 0o600 })
  return id
}
