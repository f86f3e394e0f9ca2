/**
 * The capacity model of spec/cluster.md ("Capacity model") as arithmetic: what a fleet of devices
 * asks of the nodes' cores and memory, of the NATS server and of the libSQL primary, from the
 * per-unit figures measured on the project machine (`MEASURED`, each with its source in the spec)
 * and the fleet's shape (`Fleet`: the assumptions). Pure: no I/O. `node dist/bench/capacity.js
 * [devices ...]` prints the projection for 10k, 100k and 1M devices (or the ones given).
 */

/** Per-unit costs; every one is a measured figure (spec/cluster.md names the run). */
export interface UnitCosts {
  /** Deliveries per second one node core carries at p99 ≤ 15 ms (ws-rooms sweep knee). */
  readonly deliveriesPerCore: number
  /** CPU of a delivery that crosses nodes ÷ one that does not, at load. */
  readonly crossNodeFactor: number
  /** Server RSS per idle device, KB (idle-mqtt at 18k; WSS is lower). */
  readonly idleKBPerDevice: number
  /** RSS of a node process with no terminals, MB. */
  readonly processBaseMB: number
  /** Node CPU per connect on a shared database (engine thread and libSQL client), µs. */
  readonly nodeConnectUs: number
  /** Node CPU per open room per second (its lease renewal and unit traffic), µs. */
  readonly nodeUsPerRoomSecond: number
  /** NATS CPU per room lease renewal (a JetStream KV update and its reply), µs. */
  readonly natsUsPerRenewal: number
  /**
   * NATS CPU per relay message, µs (what NATS carries of the audio while relay links are down, or
   * with `cluster.relayLink` off), and the frames a relay message carries at that load (on a link
   * or on NATS: the same batching, one message per destination node per turn).
   */
  readonly natsUsPerRelayMessage: number
  readonly framesPerRelayMessage: number
  /** Primary: usage rows a write transaction run serially from a replica commits per second (64-row group commits). */
  readonly primaryRowsPerSecond: number
  /** Primary statements per connect and per disconnect (group commit, 64 connects in flight). */
  readonly statementsPerConnect: number
  /** Primary wall µs per open session in one usage checkpoint (the UPDATE holds the write lock). */
  readonly checkpointWallUsPerSession: number
  /** Primary CPU µs per open session in one usage checkpoint. */
  readonly checkpointCpuUsPerSession: number
  /**
   * Primary wall and CPU µs per open session of the other nodes in one node's orphan recovery (a
   * transaction reading them all, at every checkpoint tick of every node).
   */
  readonly orphanScanWallUsPerSession: number
  readonly orphanScanCpuUsPerSession: number
  /** usage.checkpointMs (5000 at most). */
  readonly checkpointMs: number
}

/**
 * The figures of spec/cluster.md's tables: the 2026-12-03 08:10–08:14 UTC run of clusterOverhead.js
 * (the least loaded, load average 3.6–6.8) where it has them; for audio and memory the bench sample:
 * its 2026-11-24 sweep and 18k idle runs; the cross-node factor from three `nodes` runs of 2026-12-03
 * (18:19, 18:36 and 18:57 UTC, 22 rounds: rooms spread at random over two nodes that all talk and
 * listen, relay links over a Unix socket, paced);
 * the 400-room runs for leases (2-core machine shared with other work; see there).
 */
export const MEASURED: UnitCosts = {
  deliveriesPerCore: 82_800,
  crossNodeFactor: 1.21,
  idleKBPerDevice: 9.88,
  processBaseMB: 170,
  nodeConnectUs: 2151,
  nodeUsPerRoomSecond: 57,
  natsUsPerRenewal: 30,
  natsUsPerRelayMessage: 110,
  framesPerRelayMessage: 4,
  primaryRowsPerSecond: 799,
  statementsPerConnect: 1.55,
  checkpointWallUsPerSession: 4.3,
  checkpointCpuUsPerSession: 2.2,
  orphanScanWallUsPerSession: 15.2,
  orphanScanCpuUsPerSession: 4.1,
  checkpointMs: 5000,
}

/** The fleet: the assumptions of a projection. */
export interface Fleet {
  readonly devices: number
  /** Devices per room (a room is open, and leased, while a member is connected). */
  readonly roomSize: number
  /** Share of devices talking at any instant. */
  readonly talkerShare: number
  /** Audio frames per second a talker sends (20 ms frames: 50; xiaozhi's 60 ms: ~17). */
  readonly framesPerSecond: number
  /** Share of deliveries that cross nodes (1: every room spread over nodes, as a load balancer does). */
  readonly crossShare: number
  /** Node cores per machine, and how much of a core may be used (headroom). */
  readonly coresPerMachine: number
  readonly targetUtilisation: number
  /**
   * Audio between nodes on direct relay links (`cluster.relayLink`, on by default): NATS carries
   * none of it, and the nodes' cost of it is in `crossNodeFactor`. False: every relay message on NATS.
   */
  readonly relayLink: boolean
}

export const DEFAULT_FLEET: Omit<Fleet, 'devices'> = {
  roomSize: 4,
  talkerShare: 0.05,
  framesPerSecond: 50,
  crossShare: 1,
  coresPerMachine: 16,
  targetUtilisation: 0.7,
  relayLink: true,
}

export interface Projection {
  readonly devices: number
  readonly rooms: number
  readonly talkers: number
  readonly deliveriesPerSecond: number
  /** Node cores for audio, for room leases, and in all (at the target utilisation). */
  readonly nodeCoresAudio: number
  readonly nodeCoresLeases: number
  readonly nodeCores: number
  readonly memoryGB: number
  readonly machines: number
  /** Relay messages per second between nodes, all of them; and the relay links a node holds (one per node it shares a room with). */
  readonly relayMessagesPerSecond: number
  readonly linksPerNode: number
  /** NATS: KV renewals and relay messages per second (none with relay links), and the cores they take (one server). */
  readonly natsRenewalsPerSecond: number
  readonly natsRelayMessagesPerSecond: number
  readonly natsCores: number
  /** The share of one core the lease renewals take (one KV stream). */
  readonly natsLeaseShare: number
  /** Node processes: one per core of every machine (`hark start --nodes auto`). */
  readonly nodes: number
  /**
   * Primary: share of its write lock and of a core the usage checkpoints and the orphan recoveries
   * take (> 1: beyond one primary).
   */
  readonly primaryCheckpointLockShare: number
  readonly primaryCheckpointCpuShare: number
  /** Connects per second the cluster takes: the nodes' and the primary's ceilings, and the lower. */
  readonly nodeConnectsPerSecond: number
  readonly primaryConnectsPerSecond: number
  /** Every device connecting again after a full restart, at the lower ceiling, seconds. */
  readonly reconnectSeconds: number
  /** The single-instance component nearest its ceiling (nodes scale out; the NATS server and the primary do not). */
  readonly saturatesFirst: 'primary' | 'nats'
}

const up = (x: number) => Math.ceil(x - 1e-9)

export const project = (fleet: Fleet, c: UnitCosts = MEASURED): Projection => {
  const rooms = fleet.devices / fleet.roomSize
  const talkers = fleet.devices * fleet.talkerShare
  const deliveriesPerSecond = talkers * fleet.framesPerSecond * (fleet.roomSize - 1)
  const crossCost = 1 + (c.crossNodeFactor - 1) * fleet.crossShare
  const nodeCoresAudio = (deliveriesPerSecond * crossCost) / c.deliveriesPerCore / fleet.targetUtilisation
  const nodeCoresLeases = (rooms * c.nodeUsPerRoomSecond) / 1e6 / fleet.targetUtilisation
  const nodeCores = up(nodeCoresAudio + nodeCoresLeases)
  const machines = Math.max(1, up(nodeCores / fleet.coresPerMachine))
  const memoryGB = (fleet.devices * c.idleKBPerDevice * 1000 + machines * fleet.coresPerMachine * c.processBaseMB * 1e6) / 1e9
  // Node processes: one per core of every machine.
  const nodes = machines * fleet.coresPerMachine
  // Relay: each talker's frame goes once to each other node with members in its room (at most roomSize − 1).
  const remoteNodesPerFrame = Math.min(fleet.roomSize - 1, Math.max(0, nodes - 1)) * fleet.crossShare
  const relayMessagesPerSecond = (talkers * fleet.framesPerSecond * remoteNodesPerFrame) / c.framesPerRelayMessage
  const natsRelayMessagesPerSecond = fleet.relayLink ? 0 : relayMessagesPerSecond
  const natsRenewalsPerSecond = rooms // one KV update per open room per leaseTtlMs/3 (1 s)
  const natsCores = (natsRenewalsPerSecond * c.natsUsPerRenewal + natsRelayMessagesPerSecond * c.natsUsPerRelayMessage) / 1e6
  // A node's rooms each span up to roomSize − 1 other nodes, at random: at most every other node.
  const linksPerNode = fleet.crossShare > 0 ? Math.min(nodes - 1, (rooms / nodes) * (fleet.roomSize - 1)) : 0
  // Every checkpoint tick, each node updates its own sessions and reads every other node's.
  const others = fleet.devices * Math.max(0, nodes - 1) / nodes
  const tick = c.checkpointMs * 1000
  const primaryCheckpointLockShare = (fleet.devices * c.checkpointWallUsPerSession + nodes * others * c.orphanScanWallUsPerSession) / tick
  const primaryCheckpointCpuShare = (fleet.devices * c.checkpointCpuUsPerSession + nodes * others * c.orphanScanCpuUsPerSession) / tick
  const nodeConnectsPerSecond = (nodes * 1e6) / c.nodeConnectUs
  // The lock time the checkpoints leave, at the serial rate of 64-row group commits.
  const primaryConnectsPerSecond = c.primaryRowsPerSecond * Math.max(0, 1 - primaryCheckpointLockShare)
  const rate = Math.min(nodeConnectsPerSecond, primaryConnectsPerSecond)
  const reconnectSeconds = rate > 0 ? fleet.devices / rate : Infinity
  // Nodes scale out (add machines). The primary is one write lock; NATS relays on as many cores as
  // its machine has, but the room leases are one KV stream, whose updates take one core at most.
  // Of those two single-threaded ceilings, the one with the larger share saturates first.
  const primaryShare = Math.max(primaryCheckpointLockShare, primaryCheckpointCpuShare)
  const natsLeaseShare = (natsRenewalsPerSecond * c.natsUsPerRenewal) / 1e6
  const saturatesFirst = primaryShare >= natsLeaseShare ? 'primary' : 'nats'
  return {
    devices: fleet.devices, rooms, talkers, deliveriesPerSecond, nodeCoresAudio, nodeCoresLeases, nodeCores, memoryGB, machines, nodes,
    relayMessagesPerSecond, linksPerNode, natsRenewalsPerSecond, natsRelayMessagesPerSecond, natsCores, natsLeaseShare, primaryCheckpointLockShare, primaryCheckpointCpuShare,
    nodeConnectsPerSecond, primaryConnectsPerSecond, reconnectSeconds, saturatesFirst,
  }
}

const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? (Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en') : x.toFixed(digits)) : '∞')

/** One markdown row per fleet size: what spec/cluster.md's projection table holds. */
export const projectionTable = (sizes: readonly number[], base: Omit<Fleet, 'devices'> = DEFAULT_FLEET, c: UnitCosts = MEASURED): string => {
  const head = '| devices | rooms | talkers | node cores (audio + leases) | machines × cores | memory GB | relay messages/s (links per node) | NATS cores (of which leases, one stream) | primary lock · CPU (checkpoints + orphan scans) | connects/s (nodes · primary) | reconnect after full restart | first to saturate |'
  const rows = sizes.map((devices) => {
    const p = project({ ...base, devices }, c)
    return `| ${fmt(devices)} | ${fmt(p.rooms)} | ${fmt(p.talkers)} | ${p.nodeCores} (${fmt(p.nodeCoresAudio)} + ${fmt(p.nodeCoresLeases)}) | ${p.machines} × ${base.coresPerMachine} | ${fmt(p.memoryGB)} | ${fmt(p.relayMessagesPerSecond)} (${base.relayLink ? fmt(p.linksPerNode, 0) : 'on NATS'}) | ${fmt(p.natsCores, 2)} (${fmt(p.natsLeaseShare, 2)}) | ${fmt(p.primaryCheckpointLockShare * 100)}% · ${fmt(p.primaryCheckpointCpuShare * 100)}% | ${fmt(p.nodeConnectsPerSecond)} · ${fmt(p.primaryConnectsPerSecond)} | ${p.reconnectSeconds === Infinity ? 'never (primary full)' : `${fmt(p.reconnectSeconds / 60)} min`} | ${p.saturatesFirst} |`
  })
  return [head, `|${'---|'.repeat(12)}`, ...rows].join('\n')
}

if (process.argv[1]?.endsWith('capacity.js')) {
  const sizes = process.argv.slice(2).map(Number).filter((x) => x > 0)
  const fleets = sizes.length > 0 ? sizes : [10_000, 100_000, 1_000_000]
  process.stdout.write(`As built (every node reads every other node's open sessions at each checkpoint tick):\n${projectionTable(fleets)}\n\n`)
  const noScan = { ...MEASURED, orphanScanWallUsPerSession: 0, orphanScanCpuUsPerSession: 0 }
  process.stdout.write(`Were the orphan recovery to read only the sessions of nodes known dead (not built):\n${projectionTable(fleets, DEFAULT_FLEET, noScan)}\n\n`)
  process.stdout.write(`As built, with the audio between nodes on NATS (cluster.relayLink false, or every link down):\n${projectionTable(fleets, { ...DEFAULT_FLEET, relayLink: false })}\n`)
}
