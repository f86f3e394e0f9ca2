import { describe, expect, it } from 'vitest'
import { createActor, fromPromise, waitFor } from 'xstate'
import { ManualClock } from '../clock.js'
import { agentMachine, type AgentActorContext } from './agent.js'

const input = { agentId: 'ag_1', room: 'r', identity: 'agent-echo', startTimeoutMs: 200, stopTimeoutMs: 200 }

const withRuntime = (start: () => Promise<void>, stop: () => Promise<void> = async () => {}) =>
  agentMachine.provide({
    actors: {
      startAgent: fromPromise<void, AgentActorContext>(start),
      stopAgent: fromPromise<void, AgentActorContext>(stop),
    },
  })

describe('agent actor', () => {
  it('starting -> running -> stopping -> stopped', async () => {
    let stopped = false
    const a = createActor(withRuntime(async () => {}, async () => void (stopped = true)), { input }).start()
    await waitFor(a, (s) => s.matches('running'))
    a.send({ type: 'STOP', reason: 'deleted' })
    expect(a.getSnapshot().value).toBe('stopping')
    await waitFor(a, (s) => s.status === 'done')
    expect(a.getSnapshot().value).toBe('stopped')
    expect(a.getSnapshot().context.reason).toBe('deleted')
    expect(stopped).toBe(true)
  })

  it('fails when the provider fails to start, keeping the reason', async () => {
    const a = createActor(withRuntime(async () => { throw new Error('provider refused') }), { input }).start()
    await waitFor(a, (s) => s.status === 'done')
    expect(a.getSnapshot().value).toBe('failed')
    expect(a.getSnapshot().context.reason).toBe('provider refused')
  })

  it('fails when starting times out, at the start timeout on the engine clock', () => {
    const clock = new ManualClock(0)
    const a = createActor(withRuntime(() => new Promise(() => {})), { clock, input }).start()
    clock.advance(199)
    expect(a.getSnapshot().value).toBe('starting')
    clock.advance(1)
    expect(a.getSnapshot().value).toBe('failed')
    expect(a.getSnapshot().context.reason).toBe('start timed out')
  })

  it('a failure while running releases the provider then settles in failed', async () => {
    let released = false
    const a = createActor(withRuntime(async () => {}, async () => void (released = true)), { input }).start()
    await waitFor(a, (s) => s.matches('running'))
    a.send({ type: 'FAILED', reason: 'socket closed' })
    await waitFor(a, (s) => s.status === 'done')
    expect(a.getSnapshot().value).toBe('failed')
    expect(released).toBe(true)
  })

  it('a stop that hangs still ends at the stop timeout', async () => {
    const clock = new ManualClock(0)
    const a = createActor(withRuntime(async () => {}, () => new Promise(() => {})), { clock, input }).start()
    await waitFor(a, (s) => s.matches('running'))
    a.send({ type: 'STOP' })
    clock.advance(199)
    expect(a.getSnapshot().value).toBe('stopping')
    clock.advance(1)
    expect(a.getSnapshot().value).toBe('stopped')
  })

  it('a STOP while starting goes straight to stopping and releases', async () => {
    let released = false
    const a = createActor(withRuntime(() => new Promise(() => {}), async () => void (released = true)), { input }).start()
    expect(a.getSnapshot().value).toBe('starting')
    a.send({ type: 'STOP', reason: 'changed my mind' })
    await waitFor(a, (s) => s.status === 'done')
    expect(a.getSnapshot().value).toBe('stopped')
    expect(a.getSnapshot().context.reason).toBe('changed my mind')
    expect(released).toBe(true)
  })

  it('a failing agent whose release hangs still settles in failed at the stop timeout', async () => {
    const clock = new ManualClock(0)
    const a = createActor(withRuntime(async () => {}, () => new Promise(() => {})), { clock, input }).start()
    await waitFor(a, (s) => s.matches('running'))
    a.send({ type: 'FAILED', reason: 'crashed' })
    expect(a.getSnapshot().value).toBe('failing')
    clock.advance(200)
    expect(a.getSnapshot().value).toBe('failed')
    expect(a.getSnapshot().context.reason).toBe('crashed')
  })
})
