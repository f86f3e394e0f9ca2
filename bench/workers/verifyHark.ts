/**
 * token-verify, Hark's side: the engine's own ClientTokens.verify (jose HS256, one WebCrypto key
 * imported per workspace secret), on the data dir opened as the CLI opens it (core/dataDir.ts).
 * Usage: node dist/bench/workers/verifyHark.js --data DIR (then IPC: start, go).
 */
import { parseArgs } from 'node:util'
import { resolveSettings } from '../../core/config.js'
import { openDataDir } from '../../core/dataDir.js'
import { serveVerifier } from './verifyLoop.js'

const { values } = parseArgs({ options: { data: { type: 'string' } } })
if (!values.data) throw new Error('--data DIR is required')
const data = values.data

serveVerifier(async () => {
  const op = openDataDir(resolveSettings({ env: process.env, flags: { dataDir: data } }))
  return (token) => op.security.tokens.verify(token)
})
