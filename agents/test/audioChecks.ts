/**
 * Audio checks for agent tests: the pitch of a tone (to prove a sample-rate conversion kept the
 * frequency, which counting samples cannot) and a speech-like signal a real VAD model accepts.
 */
import { concat, silence, type UplinkEncoder } from '../../core/test/speech.js'

/** Power of `hz` in `pcm` (Goertzel), normalised by length. */
const goertzel = (pcm: ArrayLike<number>, rate: number, hz: number): number => {
  const w = (2 * Math.PI * hz) / rate
  const c = 2 * Math.cos(w)
  let s1 = 0
  let s2 = 0
  for (let i = 0; i < pcm.length; i++) {
    const s = pcm[i]! + c * s1 - s2
    s2 = s1
    s1 = s
  }
  return (s1 * s1 + s2 * s2 - c * s1 * s2) / Math.max(1, pcm.length)
}

/** The strongest frequency of `pcm` between `fromHz` and `toHz`, read at `rate` (1 Hz steps). */
export const dominantHz = (pcm: ArrayLike<number>, rate: number, fromHz = 50, toHz = 2000): number => {
  let best = fromHz
  let bestPower = -1
  for (let hz = fromHz; hz <= toHz; hz++) {
    const p = goertzel(pcm, rate, hz)
    if (p > bestPower) {
      bestPower = p
      best = hz
    }
  }
  return best
}

/**
 * Vowel-like speech at 16 kHz: a glottal pulse train (pitch gliding around 120 Hz) through three
 * formant resonators that change every syllable (4.5 per second), with a syllabic envelope. A
 * real VAD model (Silero) takes it for speech; a steady tone it does not.
 */
export const speechLike = (ms: number, seed = 1, rate = 16_000): Int16Array => {
  const n = Math.round((ms / 1000) * rate)
  const out = new Float32Array(n)
  const vowels = [[730, 1090, 2440], [270, 2290, 3010], [530, 1840, 2480], [570, 840, 2410], [300, 870, 2240], [660, 1720, 2410]]
  const res = [0, 0, 0].map(() => ({ y1: 0, y2: 0 }))
  let noise = seed
  let phase = 0
  let peak = 0
  for (let i = 0; i < n; i++) {
    const t = i / rate
    const syllable = Math.floor(t * 4.5)
    const v = vowels[(syllable * 7 + seed) % vowels.length]!
    const f0 = 120 + 30 * Math.sin(2 * Math.PI * 0.7 * t) + 10 * Math.sin(2 * Math.PI * 5 * t)
    phase += f0 / rate
    let x = 0
    if (phase >= 1) {
      phase -= 1
      x = 1
    }
    noise = (noise * 1103515245 + 12345) % 2147483648
    x += (noise / 2147483648 - 0.5) * 0.02
    let y = 0
    for (let k = 0; k < 3; k++) {
      const r = Math.exp((-Math.PI * (80 + 40 * k)) / rate)
      const c = 2 * r * Math.cos((2 * Math.PI * v[k]!) / rate)
      const s = res[k]!
      const yk = x + c * s.y1 - r * r * s.y2
      s.y2 = s.y1
      s.y1 = yk
      y += yk / (k + 1)
    }
    out[i] = y * Math.pow(Math.sin(Math.PI * ((t * 4.5) % 1)), 0.6)
    peak = Math.max(peak, Math.abs(out[i]!))
  }
  const pcm = new Int16Array(n)
  for (let i = 0; i < n; i++) pcm[i] = Math.round((out[i]! / (peak || 1)) * 0.5 * 32767)
  return pcm
}

/**
 * Talk like a device: 200 ms of silence, `ms` of speech-like sound and 900 ms of silence, one Opus
 * frame per 20 ms, paced in real time as a microphone is.
 */
export const speakInRealTime = async (send: (uplink: Uint8Array) => void, encoder: UplinkEncoder, ms = 1200): Promise<void> => {
  const frames = encoder.frames(concat(silence(200), speechLike(ms), silence(900)))
  const begin = performance.now()
  for (const [i, frame] of frames.entries()) {
    const wait = begin + i * 20 - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    send(frame)
  }
}
