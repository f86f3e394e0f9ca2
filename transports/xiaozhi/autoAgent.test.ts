/**
 * The auto agent on the engine's clock, driven by the rooms' own occupancy (room.occupancy): a
 * room gets the platform default agent when a device is in it, keeps it while any terminal is, and
 * sees it leave `agents.defaultAgentStopDelaySeconds` of the engine clock after the room emptied —
 * not a moment before; a terminal back in time keeps it; a device moved into a room brings one
 * there; a room with terminals but no device gets none.
 */
import { randomUUID } from 'node:crypto'
import * as Schema from 'effect/Schema'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineAgentProvider, ManualClock } from '../../core/index.js'
import { Inbox, seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { websocketTransport } from '../websocket/index.js'
import { TestTerminal } from '../websocket/test/terminalClient.js'
import { xiaozhi } from './index.js'
import { XiaozhiDevice } from './test/device.js'
import type { XiaozhiTransport } from './transport.js'

/** A silent agent provider; the platform default here. */
const quietAgent = defineAgentProvider('quiet', { isolate: false, create: () => ({ configSchema: Schema.Struct({}), start: () => ({}) }) })

const STOP_DELAY_MS = 30_000
const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000)
let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let transport: XiaozhiTransport
let url: string
let n = 0
/** What the rooms announce, as the auto agents hear it. */
const occupancy = new Inbox<{ room: string; terminals: number }>()

beforeAll(async () => {
  t = await startTestEngine(
    { agents: { defaultProvider: 'quiet', defaultAgentStopDelaySeconds: STOP_DELAY_MS / 1000 }, extensions: [websocketTransport, ...xiaozhi, quietAgent] },
    { clock },
  )
  seed = seedWorkspace(t.engine)
  transport = t.engine.host.resolve<XiaozhiTransport>('transport', 'xiaozhi')
  url = `wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`
  t.engine.host.terminals.on('room.occupancy', (e) => occupancy.push({ room: e.room, terminals: e.terminals }))
})
afterAll(() => t?.stop())

const device = (clientId: string, room: string) => {
  seed.addClient(clientId, room)
  const token = t.engine.host.security.devicePasswords.reset(seed.workspaceId, clientId).password
  const mac = `0e:00:00:00:00:${(++n).toString(16).padStart(2, '0')}`
  return XiaozhiDevice.connect({ url, ca: t.engine.host.tls.cert, token, device: { mac, uuid: randomUUID() } })
}

const terminal = async (clientId: string, room: string) => {
  seed.addClient(clientId, room)
  const token = (await t.engine.host.security.tokens.issue(seed.workspaceId, clientId, null)).token
  const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
  await term.event('session')
  return term
}

const awaited = new Set<{ room: string; terminals: number }>()

/** The room announced `terminals` (an announcement not awaited before) and the auto agents acted on it. */
const settled = async (room: string, terminals: number) => {
  const e = await occupancy.next((e) => e.room === room && e.terminals === terminals && !awaited.has(e), 5000, `${room} at ${terminals}`)
  awaited.add(e)
  await transport.autoAgentsIdle()
}

const live = (room: string) => t.engine.host.agents.live(seed.workspaceId, room)

describe('the xiaozhi auto agent on the engine clock', () => {
  it('leaves the stop delay after the room emptied, not a moment before; a terminal back in time keeps it', async () => {
    const first = await device('kitchen-speaker', 'kitchen')
    await settled('kitchen', 1)
    const [agent] = live('kitchen')
    expect(agent!.view()).toMatchObject({ origin: 'default', provider: 'quiet', state: 'running' })

    first.close()
    await settled('kitchen', 0)
    clock.advance(STOP_DELAY_MS - 1)
    // Back in time (a WebSocket terminal counts as much as a device): the stop is called off.
    const web = await terminal('kitchen-tablet', 'kitchen')
    await settled('kitchen', 1)
    clock.advance(STOP_DELAY_MS)
    expect(agent!.state).toBe('running')

    web.close()
    await settled('kitchen', 0)
    clock.advance(STOP_DELAY_MS - 1)
    expect(agent!.state).toBe('running')
    clock.advance(1)
    await agent!.ended
    expect(agent!.view()).toMatchObject({ state: 'stopped', reason: 'room empty' })
  })

  it('follows a device moved into another room, and gives a room without a device none', async () => {
    const web = await terminal('hall-tablet', 'hall')
    const speaker = await device('moving-speaker', 'attic')
    await settled('attic', 1)
    const [atticAgent] = live('attic')
    expect(atticAgent).toBeDefined()

    seed.moveClient('moving-speaker', 'hall')
    await settled('hall', 2)
    await settled('attic', 0)
    // The hall had only a tablet: no agent until the device came; now one.
    expect(live('hall')).toHaveLength(1)
    clock.advance(STOP_DELAY_MS)
    await atticAgent!.ended
    expect(atticAgent!.view()).toMatchObject({ state: 'stopped', reason: 'room empty' })

    speaker.close()
    await settled('hall', 1)
    expect(live('hall')).toHaveLength(1)
    web.close()
  })

  it('gives a room of terminals without a device no agent', async () => {
    const web = await terminal('study-tablet', 'study')
    await settled('study', 1)
    expect(live('study')).toEqual([])
    web.close()
  })
})
