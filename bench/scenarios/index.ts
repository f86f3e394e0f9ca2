/**
 * Every scenario, in report order. A scenario file default-exports a Scenario; to add one,
 * import it here (replacing its pending line if it had one). Pending lines name what each
 * scenario waits for on main.
 */
import type { Scenario } from '../scenario.js'
import agentLatency from './agentLatency.js'
import churnMemory from './churnMemory.js'
import cluster from './cluster.js'
import connectStorm from './connectStorm.js'
import idleMemory from './idleMemory.js'
import idleMqtt from './idleMqtt.js'
import localAgent from './localAgent.js'
import mqttRooms from './mqttRooms.js'
import nodes from './nodes.js'
import reconnect from './reconnect.js'
import overload from './overload.js'
import recording from './recording.js'
import { restDetail, restToken } from './rest.js'
import tokenVerify from './tokenVerify.js'
import webhooks from './webhooks.js'
import webrtcPeers from './webrtcPeers.js'
import wsRooms from './wsRooms.js'
import xiaozhiDevices from './xiaozhiDevices.js'

export const scenarios: readonly Scenario[] = [
  tokenVerify,
  restToken,
  restDetail,
  wsRooms,
  mqttRooms,
  webrtcPeers,
  agentLatency,
  localAgent,
  idleMemory,
  idleMqtt,
  connectStorm,
  reconnect,
  churnMemory,
  webhooks,
  xiaozhiDevices,
  cluster,
  recording,
  overload,
  nodes,
]

export const findScenario = (name: string): Scenario | undefined => scenarios.find((s) => s.name === name)
