/**
 * What mixed mode costs: drives one room's router (core/dataplane/roomRouter.ts) with real Opus
 * frames (@evan/opus, 16 kHz mono, 20 ms) from T talkers to R receivers in mixed mode, on a
 * simulated 20 ms clock, and prints the CPU time per simulated second of audio — i.e. the share of
 * one core a room like that takes — next to the same room with every receiver in forward mode.
 * Not a side-by-side peer comparison (nothing else mixes Opus here), so it is a standalone figure.
 * Usage: node dist/bench/mixerCost.js [seconds of audio per case, default 20]
 */
import { Encoder } from '@evan/opus'
import { levelByteFromPcm } from '../core/dataplane/frame.js'
import { MIX_FRAME_MS, MIX_FRAME_SAMPLES, RoomMixer, type MixStats } from '../core/dataplane/mixer.js'
import { RoomRouter, type AudioSink } from '../core/dataplane/roomRouter.js'

const seconds = Number(process.argv[2] ?? 20)
const FRAMES = (seconds * 1000) / MIX_FRAME_MS

/** Pre-encoded uplink frames of a tone per talker (encoding is the terminals' cost, not the server's). */
const talkerFrames = (talkers: number): Uint8Array[][] =>
  Array.from({ length: talkers }, (_, t) => {
    const encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
    const hz = 300 + 170 * t
    return Array.from({ length: 50 }, (_, f) => {
      const pcm = new Int16Array(MIX_FRAME_SAMPLES)
      for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(5000 * Math.sin((2 * Math.PI * hz * (f * MIX_FRAME_SAMPLES + i)) / 16000))
      const opus = encoder.encode(pcm)
      const up = new Uint8Array(opus.length + 1)
      up[0] = levelByteFromPcm(pcm)
      up.set(opus, 1)
      return up
    })
  })

interface Case {
  readonly talkers: number
  readonly listeners: number
  readonly talkersMixed: boolean
  readonly mode: 'mixed' | 'forward'
}

const run = (c: Case) => {
  const router = new RoomRouter('bench', { speakingStarted: () => {} })
  let delivered = 0
  const sinks: AudioSink[] = []
  const ports = Array.from({ length: c.talkers }, (_, i) => router.addSource(i + 1))
  for (let i = 0; i < c.talkers; i++) {
    sinks.push({ sourceId: i + 1, audioMode: c.mode === 'mixed' && c.talkersMixed ? 'mixed' : 'forward', deliver: () => delivered++ })
  }
  for (let i = 0; i < c.listeners; i++) {
    router.addSource(c.talkers + i + 1)
    sinks.push({ sourceId: c.talkers + i + 1, audioMode: c.mode, deliver: () => delivered++ })
  }
  router.setSinks(sinks)
  // Drive the mixer's clock by hand: its timer would run on wall time.
  const mixer = (router as unknown as { mixer: RoomMixer | null }).mixer
  const frames = talkerFrames(c.talkers)
  let now = 1e9
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let f = 0; f < FRAMES; f++) {
    for (let t = 0; t < c.talkers; t++) router.forward(ports[t]!, frames[t]![f % 50]!, now)
    now += MIX_FRAME_MS
    mixer?.tick(now)
  }
  const cpu = process.cpuUsage(cpu0)
  const wallMs = performance.now() - t0
  const stats: MixStats = router.mixStats
  router.dispose()
  const cpuMs = (cpu.user + cpu.system) / 1000
  return { cpuMs, wallMs, delivered, stats }
}

const cases: Case[] = [
  { talkers: 1, listeners: 3, talkersMixed: true, mode: 'forward' },
  { talkers: 1, listeners: 3, talkersMixed: true, mode: 'mixed' },
  { talkers: 2, listeners: 2, talkersMixed: true, mode: 'forward' },
  { talkers: 2, listeners: 2, talkersMixed: true, mode: 'mixed' },
  { talkers: 3, listeners: 1, talkersMixed: true, mode: 'mixed' },
  { talkers: 4, listeners: 0, talkersMixed: true, mode: 'mixed' },
  { talkers: 4, listeners: 6, talkersMixed: false, mode: 'mixed' },
]

console.log(`mixer cost: ${seconds} s of 20 ms Opus frames per case, one room, simulated clock`)
console.log('talkers  listeners  mode                        CPU % of one core  decoded/s  encoded/s  deliveries/s')
for (const c of cases) {
  const r = run(c)
  const mode = c.mode === 'forward' ? 'all forward' : c.talkersMixed ? 'all mixed' : 'listeners mixed, talkers fwd'
  const pct = (r.cpuMs / (seconds * 1000)) * 100
  console.log(
    `${String(c.talkers).padStart(7)}  ${String(c.listeners).padStart(9)}  ${mode.padEnd(26)}  ${pct.toFixed(2).padStart(17)}  ${(r.stats.framesDecoded / seconds).toFixed(0).padStart(9)}  ${(r.stats.framesEncoded / seconds).toFixed(0).padStart(9)}  ${(r.delivered / seconds).toFixed(0).padStart(12)}`,
  )
}
