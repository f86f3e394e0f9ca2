/**
 * Audio for tests: real Opus (encoded with @evan/opus from generated tones), and a Goertzel
 * filter to tell which tones a decoded stream contains.
 */
import { Decoder, Encoder } from '@evan/opus'
import { levelByteFromPcm } from '../dataplane/frame.js'
import { concat, SAMPLE_RATE } from './speech.js'

/** A continuous sine source cut into frames of `frameMs`, encoded as a terminal would send it. */
export class ToneTalker {
  private readonly encoder = new Encoder({ channels: 1, sample_rate: SAMPLE_RATE, application: 'voip' })
  private phase = 0

  constructor(
    readonly hz: number,
    readonly amplitude = 6000,
    readonly frameMs = 20,
  ) {}

  /** The next frame as PCM. */
  nextPcm(): Int16Array {
    const n = (SAMPLE_RATE * this.frameMs) / 1000
    const pcm = new Int16Array(n)
    for (let i = 0; i < n; i++) pcm[i] = Math.round(this.amplitude * Math.sin(this.phase + (2 * Math.PI * this.hz * i) / SAMPLE_RATE))
    this.phase = (this.phase + (2 * Math.PI * this.hz * n) / SAMPLE_RATE) % (2 * Math.PI)
    return pcm
  }

  /** The next uplink frame: V|level byte computed from the PCM, then the Opus packet. */
  nextUplink(): Uint8Array {
    const pcm = this.nextPcm()
    const opus = this.encoder.encode(pcm)
    const frame = new Uint8Array(opus.length + 1)
    frame[0] = levelByteFromPcm(pcm)
    frame.set(opus, 1)
    return frame
  }
}

/** Decode Opus packets of one stream to 16 kHz PCM. */
export class PcmSink {
  private readonly decoder = new Decoder({ channels: 1, sample_rate: SAMPLE_RATE })
  readonly frames: Int16Array[] = []

  decode(opus: Uint8Array): Int16Array {
    const bytes = this.decoder.decode(opus)
    const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    this.frames.push(pcm)
    return pcm
  }
}

/** Relative power of `hz` in `pcm` (Goertzel), normalised by the block's length. */
export const tonePower = (pcm: Int16Array, hz: number): number => {
  const k = (2 * Math.PI * hz) / SAMPLE_RATE
  const coeff = 2 * Math.cos(k)
  let s1 = 0
  let s2 = 0
  for (let i = 0; i < pcm.length; i++) {
    const s0 = pcm[i]! / 32768 + coeff * s1 - s2
    s2 = s1
    s1 = s0
  }
  return (s1 * s1 + s2 * s2 - coeff * s1 * s2) / (pcm.length * pcm.length)
}

/** Concatenate PCM frames. */
export const joinPcm = (frames: ReadonlyArray<Int16Array>): Int16Array => concat(...frames)
