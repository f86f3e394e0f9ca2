/**
 * Speech for agent tests: speech-like PCM (tones) and silence at 16 kHz, encoded to real
 * Opus uplink frames (V|level byte + packet), and downlink frames decoded back to PCM per source.
 */
import { Decoder, Encoder } from '@evan/opus'
import { levelByteFromPcm, parseDownlink } from '../dataplane/frame.js'

export const SAMPLE_RATE = 16_000
export const FRAME_SAMPLES = 320

/** A tone of `ms` at `hz`, amplitude `amplitude` of full scale. */
export const tone = (ms: number, hz = 440, amplitude = 0.3): Int16Array => {
  const n = Math.round((ms / 1000) * SAMPLE_RATE)
  const pcm = new Int16Array(n)
  for (let i = 0; i < n; i++) pcm[i] = Math.round(Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE) * amplitude * 32767)
  return pcm
}

export const silence = (ms: number): Int16Array => new Int16Array(Math.round((ms / 1000) * SAMPLE_RATE))

export const concat = (...parts: Int16Array[]): Int16Array => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** 20 ms PCM frames of `pcm` (the last one zero-padded). */
export const frames = (pcm: Int16Array): Int16Array[] => {
  const out: Int16Array[] = []
  for (let at = 0; at < pcm.length; at += FRAME_SAMPLES) {
    const f = new Int16Array(FRAME_SAMPLES)
    f.set(pcm.subarray(at, at + FRAME_SAMPLES))
    out.push(f)
  }
  return out
}

/** A terminal's encoder: PCM in, uplink frames (level byte + Opus) out, one per 20 ms. */
export class UplinkEncoder {
  private readonly encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })

  frame(pcm20: Int16Array): Uint8Array {
    const opus = this.encoder.encode(new Uint8Array(pcm20.buffer, pcm20.byteOffset, pcm20.byteLength))
    const uplink = new Uint8Array(opus.length + 1)
    uplink[0] = levelByteFromPcm(pcm20)
    uplink.set(opus, 1)
    return uplink
  }

  frames(pcm: Int16Array): Uint8Array[] {
    return frames(pcm).map((f) => this.frame(f))
  }
}

/** A listener's decoders: one per source id, as the terminal protocol intends. */
export class DownlinkDecoder {
  private readonly decoders = new Map<number, Decoder>()

  /** Decode one downlink frame; throws on anything that is not a valid Opus downlink frame. */
  decode(frame: Uint8Array): { sourceId: number; pcm: Int16Array } {
    const parsed = parseDownlink(frame)
    if (!parsed) throw new Error('not a downlink audio frame')
    let d = this.decoders.get(parsed.sourceId)
    if (!d) this.decoders.set(parsed.sourceId, (d = new Decoder({ channels: 1, sample_rate: 16000 })))
    const bytes = d.decode(parsed.opus)
    return { sourceId: parsed.sourceId, pcm: new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1) }
  }
}

/** RMS of PCM as a fraction of full scale. */
export const rms = (pcm: Int16Array): number => {
  let sum = 0
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!
  return Math.sqrt(sum / Math.max(1, pcm.length)) / 32768
}
