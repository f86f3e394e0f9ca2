import { describe, expect, it } from 'vitest'
import { scenarios } from './index.js'
import { readyNodePids } from './nodes.js'

describe('nodes scenario', () => {
  it('reads the node PIDs from the supervisor’s ready line, and only when every node is in it', () => {
    const log = [
      'hark: running on REST http://127.0.0.1:1/api/v1',
      'hark: 2 nodes in a cluster over NATS at nats://127.0.0.1:4222 : abc-1 (pid 101), abc-2 (pid 102)',
    ].join('\n')
    expect(readyNodePids(log, 2)).toEqual([101, 102])
    expect(readyNodePids('hark: starting', 2)).toBeNull()
    expect(readyNodePids('hark: 2 nodes in a cluster over NATS at x : abc-1 (pid 101)', 2)).toBeNull()
  })

  it('is listed, judged per server CPU-second against --nodes 1; two independent processes beside them in full runs only', () => {
    const s = scenarios.find((x) => x.name === 'nodes')!
    expect(s.goal?.perCpuRatios).toEqual({ 'hark-1node': 0.8 })
    expect(s.peers.map((p) => [p.name, p.fullOnly ?? false])).toEqual([
      ['hark-1node', false],
      ['hark-2solo', true],
    ])
  })
})
