import { describe, expect, it } from 'vitest'
import { createActor, fromCallback } from 'xstate'
import { ManualClock } from '../clock.js'
import { ClientDeleted, ProtocolError } from '../errors.js'
import type { ServerEvent } from '../events.js'
import { Session } from '../session.js'
import { terminalIdentity } from '../test/helpers.js'
import { clientMachine, type ClientEndedEvent } from './client.js'

const T0 = Date.parse('2026-11-20T12:00:00Z')

const identity = terminalIdentity('c1')

/** A client actor over a real Session and a recording link, on a manual clock. */
const harness = (expiresInMs: number | null) => {
  const clock = new ManualClock(T0)
  const events: ServerEvent[] = []
  const closedWith: string[] = []
  const session = new Session(
    identity,
    { transport: 'test', deliverAudio() {}, sendEvent: (e) => events.push(e), close: (r) => closedWith.push(r._tag) },
    clock,
    'forward',
  )
  const ended: ClientEndedEvent[] = []
  // The workspace stand-in: an actor that records what it is told.
  const workspace = createActor(fromCallback<ClientEndedEvent>(({ receive }) => receive((e) => ended.push(e)))).start()
  const actor = createActor(clientMachine, { clock, input: { session, workspace, expiresInMs } })
  session.admitted(workspace, actor)
  actor.start()
  return { clock, actor, session, events, closedWith, ended }
}

describe('client actor', () => {
  it('open.expiring --after expiry--> closed: the session is closed as token_expired at that instant', () => {
    const h = harness(60_000)
    expect(h.actor.getSnapshot().value).toEqual({ open: 'expiring' })
    h.clock.advance(59_999)
    expect(h.actor.getSnapshot().value).toEqual({ open: 'expiring' })
    h.clock.advance(1)
    expect(h.actor.getSnapshot().value).toBe('closed')
    expect(h.closedWith).toEqual(['TokenExpired'])
    expect(h.events.at(-1)).toMatchObject({ type: 'session.closing', code: 'token_expired' })
    expect(h.ended).toEqual([{ type: 'SESSION_END', session: h.session, reason: expect.objectContaining({ _tag: 'TokenExpired' }) }])
    expect(h.clock.pendingTimers).toBe(0)
  })

  it('open --CLOSE--> closed: says why, closes the link, reports the end once', () => {
    const h = harness(60_000)
    h.actor.send({ type: 'CLOSE', reason: new ClientDeleted({ message: 'client deleted' }) })
    expect(h.actor.getSnapshot().status).toBe('done')
    expect(h.closedWith).toEqual(['ClientDeleted'])
    expect(h.events.at(-1)).toMatchObject({ type: 'session.closing', code: 'client_deleted' })
    // The session's own end (the transport noticing the close) adds nothing.
    h.session.end()
    expect(h.ended).toEqual([{ type: 'SESSION_END', session: h.session, reason: expect.objectContaining({ _tag: 'ClientDeleted' }) }])
    // The expiry timer went with the actor.
    expect(h.clock.pendingTimers).toBe(0)
  })

  it('open --END--> closed: the terminal went away, nothing is said to it', () => {
    const h = harness(null)
    h.session.end()
    expect(h.actor.getSnapshot().value).toBe('closed')
    expect(h.closedWith).toEqual([])
    expect(h.events).toEqual([])
    expect(h.ended).toEqual([{ type: 'SESSION_END', session: h.session, reason: null }])
  })

  it('open --END(reason)--> closed: a session its transport closed (a protocol error) reports that error', () => {
    const h = harness(null)
    h.session.close(new ProtocolError({ message: 'bad frame' }))
    expect(h.actor.getSnapshot().value).toBe('closed')
    expect(h.closedWith).toEqual(['ProtocolError'])
    expect(h.ended).toEqual([{ type: 'SESSION_END', session: h.session, reason: expect.objectContaining({ _tag: 'ProtocolError' }) }])
  })

  it('open.admitted --> open.unbounded: a credential without expiry arms no timer', () => {
    const h = harness(null)
    expect(h.actor.getSnapshot().value).toEqual({ open: 'unbounded' })
    expect(h.clock.pendingTimers).toBe(0)
    h.clock.advance(400 * 86_400_000)
    expect(h.actor.getSnapshot().value).toEqual({ open: 'unbounded' })
  })
})
