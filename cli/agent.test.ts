/**
 * `hark agent …`: live control of running agents from the command line, through a running
 * engine's REST API (a real engine on a free port, the real CLI process).
 */
import { createServer, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { echoAgent } from '../agents/echo/index.js'
import { runCli } from '../core/test/helpers.js'
import { startRestEngine, type RestEngine } from '../plugins/rest/test/restEngine.js'

let t: RestEngine
let acme: ReturnType<RestEngine['workspace']>
let url: string
let agentId: string

beforeAll(async () => {
  t = await startRestEngine({ extensions: [echoAgent] })
  acme = t.workspace('acme')
  url = new URL(t.base).origin
  agentId = (await acme.api.post('/agents', { room: 'lobby' })).body.agentId
})
afterAll(() => t.stop())

const hark = (...args: string[]) => runCli(['agent', ...args, '--url', url], { HARK_API_KEY: acme.apiKey })

describe('hark agent', () => {
  it('lists, interrupts and stops running agents; a refusal is printed in the API’s words', async () => {
    const listed = await hark('list', '--room', 'lobby', '--json')
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ agentId, room: 'lobby', provider: 'echo', state: 'running' })])

    const interrupted = await hark('interrupt', agentId)
    expect(interrupted).toMatchObject({ code: 0, stdout: `${agentId}: interrupted\n` })

    // The echo provider cannot say text nor take new instructions: 409 not_supported, exit 1.
    const said = await hark('say', agentId, 'hello there', '--interrupt')
    expect(said.code).toBe(1)
    expect(said.stderr).toMatch(/^hark: .*say.*\(409 not_supported\)\n$/)
    const updated = await hark('update', agentId, '--instructions', 'Be brief.')
    expect(updated.code).toBe(1)
    expect(updated.stderr).toMatch(/\(409 not_supported\)/)

    const stopped = await hark('stop', agentId, '--json')
    expect(stopped.code, stopped.stderr).toBe(0)
    expect(JSON.parse(stopped.stdout)).toMatchObject({ agentId, stopped: true, state: 'stopped' })
    expect((await acme.api.get(`/agents/${agentId}`)).body).toMatchObject({ state: 'stopped' })
  })

  it('bad input: nothing to change, tools that are not JSON, a wrong key, an unknown agent, no engine there', async () => {
    expect(await hark('update', 'ag_x')).toMatchObject({ code: 2, stderr: 'hark: nothing to change: give --instructions and/or --tools\n' })
    expect(await hark('update', 'ag_x', '--tools', '{device:')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^hark: --tools is not JSON/) })
    const wrongKey = await runCli(['agent', 'list', '--url', url, '--api-key', 'hk_wrong'])
    expect(wrongKey.code).toBe(1)
    expect(wrongKey.stderr).toMatch(/^hark: .*\(401 [a-z_]+\)\n$/)
    const unknown = await hark('interrupt', 'ag_0000000000000000')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/\(404 not_found\)\n$/)
    // A port the system just handed out and that nothing listens on any more.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const nobody = await runCli(['agent', 'list', '--url', `http://127.0.0.1:${port}`, '--api-key', 'hk_x'])
    expect(nobody).toMatchObject({ code: 3, stderr: `hark: the engine at http://127.0.0.1:${port} cannot be reached (ECONNREFUSED)\n` })
  })
})
