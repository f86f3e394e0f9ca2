/**
 * token-verify, Hark's side: the engine's own ClientTokens.verify (jose HS256, one WebCrypto key
 * imported per workspace secret), assembled on the data dir the way the CLI does it.
 * Usage: node dist/bench/workers/verifyHark.js --data DIR (then IPC: start, go).
 */
import { parseArgs } from 'node:util'
import { openOperator } from '../../plugins/cli/context.js'
import { serveVerifier } from './verifyLoop.js'

const { values } = parseArgs({ options: { data: { type: 'string' } } })
if (!values.data) throw new Error('--data DIR is required')
const data = values.data

serveVerifier(async () => {
  const op = await openOperator({ data })
  return (token) => op.security.tokens.verify(token)
})
