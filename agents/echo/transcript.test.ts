/**
 * The echo's conversation, recorded by the runtime: a real xiaozhi device talks to the room's auto
 * agent (echo) over a real WebSocket, cuts a reply (abort), talks again; the transcript has the turns
 * in order (no text: the echo has none) with the barge-in, and a real receiver gets agent.turn once each.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { tone } from '../../core/test/speech.js'
import { checkOrderedAndComplete, WebhookReceiver } from '../../plugins/webhooks/test/receiver.js'
import { startWebhookEngine, type WebhookEngine } from '../../plugins/webhooks/test/webhookEngine.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { xiaozhi } from '../../transports/xiaozhi/index.js'
import { pollOta, XiaozhiDevice, type DeviceIdentity } from '../../transports/xiaozhi/test/device.js'
import { echoAgent } from './index.js'

let t: WebhookEngine | undefined
let receiver: WebhookReceiver | undefined
afterEach(async () => {
  await t?.stop()
  await receiver?.close()
})

describe('transcript of an echo agent (runtime-recorded, no text)', () => {
  it('a device talks, cuts a reply, talks again: turns in order with the barge-in; agent.turn delivered once each, in order', async () => {
    receiver = await WebhookReceiver.start()
    t = await startWebhookEngine({ config: { extensions: [websocketTransport, ...xiaozhi, echoAgent] } })
    const ws = await t.workspaceWithEndpoint(receiver, 'acme', ['agent.started', 'agent.turn', 'agent.stopped'])
    const otaUrl = `http://127.0.0.1:${t.engine.ports.rest}/xiaozhi/ota/`
    const device: DeviceIdentity = { mac: 'AA:BB:CC:00:01:01', uuid: randomUUID() }
    const code = ((await pollOta(otaUrl, device)).body.activation as { code: string }).code
    t.engine.host.security.deviceEnrollment.claim({ code, workspaceId: ws.workspaceId, clientId: 'speaker-1', room: 'den' })
    const { url, token } = (await pollOta(otaUrl, device)).body.websocket as { url: string; token: string }
    const xz = await XiaozhiDevice.connect({ url, token, device, ca: t.engine.host.tls.cert })

    // Turn 1: a long utterance; its echo is cut a few packets in.
    xz.listenStart('manual')
    await xz.speak(tone(2400, 400))
    xz.listenStop()
    await xz.message('tts', (m) => m.state === 'start')
    await xz.audio.next(() => true, 5000, 'the first packet of the reply')
    xz.abort('wake_word_detected')
    await xz.message('tts', (m) => m.state === 'stop')
    // Turn 2, heard to its end.
    xz.listenStart('manual')
    await xz.speak(tone(420, 600))
    xz.listenStop()
    await xz.reply(1)

    const agents = (await ws.api.get('/agents?room=den')).body.agents as Array<{ agentId: string }>
    expect(agents).toHaveLength(1)
    const agentId = agents[0]!.agentId
    expect((await ws.api.delete(`/agents/${agentId}`)).status).toBe(200)
    xz.close()
    await t.engine.host.agents.transcripts!.flush()

    const transcript = await ws.api.get(`/agents/${agentId}/transcript`)
    expect(transcript.status).toBe(200)
    expect(transcript.body).toMatchObject({ agentId, room: 'den', identity: 'agent@default', provider: 'echo', turns: 4, textHidden: false, nextCursor: null })
    expect(transcript.body.endedAt).toEqual(expect.any(String))
    const turns = transcript.body.items as Array<Record<string, unknown>>
    expect(turns.map((x) => [x.seq, x.role, x.speaker, x.text, x.interrupted, x.interruptedBy])).toEqual([
      [1, 'user', 'speaker-1', null, false, null],
      [2, 'agent', 'agent@default', null, true, 'speaker-1'],
      [3, 'user', 'speaker-1', null, false, null],
      [4, 'agent', 'agent@default', null, false, null],
    ])
    const ms = (x: Record<string, unknown>) => Date.parse(x.endedAt as string) - Date.parse(x.startedAt as string)
    // The first utterance is ~2.4 s (plus pre-roll); its echo was cut well before it played out.
    expect(ms(turns[0]!)).toBeGreaterThanOrEqual(2400)
    expect(ms(turns[1]!)).toBeLessThan(ms(turns[0]!))
    expect(ms(turns[2]!)).toBeGreaterThanOrEqual(420)
    expect(ms(turns[2]!)).toBeLessThan(2000)
    // In the order they ended (a user turn may start before the reply it cut ended: that is a barge-in).
    for (let i = 1; i < turns.length; i++) expect(Date.parse(turns[i]!.endedAt as string)).toBeGreaterThanOrEqual(Date.parse(turns[i - 1]!.endedAt as string))

    // agent.started, four agent.turn, agent.stopped: once each, numbered in order.
    await receiver.acceptedCount(6)
    const mine = checkOrderedAndComplete(receiver.accepted.items).get(`agent:${agentId}`)!
    expect(mine.map((e) => [e.type, e.sequence])).toEqual([
      ['agent.started', 1], ['agent.turn', 2], ['agent.turn', 3], ['agent.turn', 4], ['agent.turn', 5], ['agent.stopped', 6],
    ])
    expect(mine.slice(1, 5).map((e) => e.data)).toEqual(turns.map((x) => ({ agentId, room: 'den', identity: 'agent@default', ...x })))
    expect(new Set(receiver.accepted.items.map((e) => e.id)).size).toBe(receiver.accepted.items.length)
  })
})
