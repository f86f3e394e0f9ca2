import { describe, expect, it } from 'vitest'
import { DEFAULT_FLEET, MEASURED, project, projectionTable, type UnitCosts } from './capacity.js'

const unit: UnitCosts = {
  deliveriesPerCore: 100_000, crossNodeFactor: 1.5, idleKBPerDevice: 10, processBaseMB: 100,
  nodeConnectUs: 1000, nodeUsPerRoomSecond: 100, natsUsPerRenewal: 50, natsUsPerRelayMessage: 100,
  framesPerRelayMessage: 10, primaryRowsPerSecond: 500, statementsPerConnect: 1.5,
  checkpointWallUsPerSession: 10, checkpointCpuUsPerSession: 2, orphanScanWallUsPerSession: 0, orphanScanCpuUsPerSession: 0,
  checkpointMs: 5000,
}
const fleet = { devices: 100_000, roomSize: 4, talkerShare: 0.1, framesPerSecond: 50, crossShare: 1, coresPerMachine: 8, targetUtilisation: 1, relayLink: false }

describe('the capacity projection', () => {
  it('sizes node cores from deliveries (with the cross-node factor) and room leases', () => {
    const p = project(fleet, unit)
    expect(p.rooms).toBe(25_000)
    expect(p.talkers).toBe(10_000)
    expect(p.deliveriesPerSecond).toBe(10_000 * 50 * 3) // 1.5M
    expect(p.nodeCoresAudio).toBeCloseTo(22.5) // 1.5M × 1.5 ÷ 100k
    expect(p.nodeCoresLeases).toBeCloseTo(2.5) // 25k rooms × 100 µs
    expect(p.nodeCores).toBe(25)
    expect(p.machines).toBe(4) // 25 cores ÷ 8 per machine
    expect(p.memoryGB).toBeCloseTo(1 + 4 * 8 * 0.1) // 100k × 10 KB + 32 processes × 100 MB
  })

  it('counts NATS renewals per room and relay messages per talker frame and remote node', () => {
    const p = project(fleet, unit)
    expect(p.natsRenewalsPerSecond).toBe(25_000)
    expect(p.natsRelayMessagesPerSecond).toBe((10_000 * 50 * 3) / 10)
    expect(p.natsCores).toBeCloseTo((25_000 * 50 + 150_000 * 100) / 1e6)
  })

  it('puts the relay messages on the nodes\' links, not on NATS, when relay links are on', () => {
    const p = project({ ...fleet, relayLink: true }, unit)
    expect(p.relayMessagesPerSecond).toBe((10_000 * 50 * 3) / 10)
    expect(p.natsRelayMessagesPerSecond).toBe(0)
    expect(p.natsCores).toBeCloseTo((25_000 * 50) / 1e6) // the lease renewals alone
    expect(p.nodes).toBe(32)
    expect(p.linksPerNode).toBe(31) // 25k rooms over 32 nodes span every other node
    // 10 rooms on one machine of 8 nodes: 1.25 rooms a node, each spanning up to 3 others
    expect(project({ ...fleet, relayLink: true, devices: 40 }, unit).linksPerNode).toBeCloseTo(3.75)
  })

  it('takes the checkpoints lock time off the primary before connects, and reconnects at the lower ceiling', () => {
    const p = project(fleet, unit)
    expect(p.primaryCheckpointLockShare).toBeCloseTo(0.2) // 100k × 10 µs per 5 s
    expect(p.primaryCheckpointCpuShare).toBeCloseTo(0.04)
    expect(p.primaryConnectsPerSecond).toBeCloseTo(400)
    expect(p.nodeConnectsPerSecond).toBe(32_000)
    expect(p.reconnectSeconds).toBeCloseTo(250)
    expect(p.natsLeaseShare).toBeCloseTo(1.25) // 25k renewals × 50 µs: more than the one core of the KV stream
    expect(p.saturatesFirst).toBe('nats') // against 20% of the primary
  })

  it('adds each node reading every other node\'s open sessions at every tick (orphan recovery)', () => {
    const p = project({ ...fleet, devices: 10_000 }, { ...unit, orphanScanWallUsPerSession: 10, orphanScanCpuUsPerSession: 1 })
    expect(p.nodes).toBe(8) // 1 machine of 8 cores
    // 10k × 10 µs (checkpoints) + 8 nodes × 8750 others × 10 µs (scans), per 5 s
    expect(p.primaryCheckpointLockShare).toBeCloseTo((100_000 + 700_000) / 5e6)
    expect(p.primaryCheckpointCpuShare).toBeCloseTo((20_000 + 70_000) / 5e6)
  })

  it('says when the checkpoints alone fill the primary: no reconnect rate is left', () => {
    const p = project({ ...fleet, devices: 1_000_000 }, unit)
    expect(p.primaryCheckpointLockShare).toBeCloseTo(2)
    expect(p.primaryConnectsPerSecond).toBe(0)
    expect(p.reconnectSeconds).toBe(Infinity)
  })

  it('prints one row per fleet size from the measured figures', () => {
    const table = projectionTable([10_000, 100_000], DEFAULT_FLEET, MEASURED)
    expect(table.split('\n')).toHaveLength(4)
    expect(table).toContain('| 10,000 |')
  })
})
