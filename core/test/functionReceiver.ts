/**
 * A back end's function endpoint for tests: a real HTTPS server on a free port of 127.0.0.1 with a
 * self-signed certificate (written to a CA file for agents.functionsCaFile), verifying each call's
 * Standard Webhooks signature with the `standardwebhooks` package against the secrets a test adds,
 * and answering what the test decides ('hold': never). Webhook events sent to the same endpoint
 * (no callId) are acknowledged and left out.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generate } from 'selfsigned'
import { Webhook } from 'standardwebhooks'
import { Inbox } from './helpers.js'

export interface FunctionCall {
  readonly headers: IncomingHttpHeaders
  readonly raw: string
  readonly verified: boolean
  readonly body: Record<string, unknown>
}

export const startFunctionReceiver = async (answer: (call: FunctionCall, res: ServerResponse) => void | 'hold') => {
  const pems = await generate([{ name: 'commonName', value: 'functions.test' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  })
  const calls = new Inbox<FunctionCall>()
  const secrets: string[] = []
  const held: ServerResponse[] = []
  const server = createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString()
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
      let verified = false
      for (const secret of secrets) {
        try {
          new Webhook(secret).verify(raw, headers)
          verified = true
        } catch {
          // not this secret
        }
      }
      const body = JSON.parse(raw) as Record<string, unknown>
      // The endpoint's webhook events (not function calls) are acknowledged and left out.
      if (typeof body.callId !== 'string') return void res.writeHead(204).end()
      const call = { headers: req.headers, raw, verified, body }
      calls.push(call)
      if (answer(call, res) === 'hold') held.push(res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const dir = mkdtempSync(join(tmpdir(), 'hark-fn-ca-'))
  writeFileSync(join(dir, 'ca.pem'), pems.cert)
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/functions`,
    caFile: join(dir, 'ca.pem'),
    calls,
    secrets,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

