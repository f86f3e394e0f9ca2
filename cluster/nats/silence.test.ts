/**
 * When a cluster node judges its peers silent (peers.ts, judgesSilence): not at a tick that came late
 * (the others' heartbeats are still unread after this node's own stall), but never two ticks in a
 * row without judging, so a node whose loop is blocked again and again still forgets a dead peer.
 */
import { describe, expect, it } from 'vitest'
import { judgesSilence } from './peers.js'

const TICK = 1000

/** Which of a run of ticks judge, given how long after the previous one each came. */
const run = (gaps: number[]): boolean[] => {
  let deferred = false
  return gaps.map((gap) => {
    const judge = judgesSilence(gap, TICK, deferred)
    deferred = !judge
    return judge
  })
}

describe('judging silent peers', () => {
  it('judges at every tick that comes on time', () => {
    expect(run([TICK, TICK, TICK])).toEqual([true, true, true])
  })

  it('skips the one tick that came after a stall of this node, and judges at the next', () => {
    expect(run([TICK, 5 * TICK, TICK, TICK])).toEqual([true, false, true, true])
  })

  it('judges at least every other tick when every tick is late (a loop blocked again and again)', () => {
    expect(run([5 * TICK, 5 * TICK, 5 * TICK, 5 * TICK])).toEqual([false, true, false, true])
  })
})
