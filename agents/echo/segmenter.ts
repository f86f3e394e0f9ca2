/**
 * Voice-activity segmentation for the echo agent: 20 ms PCM frames in, whole utterances out. A
 * frame is voiced when its RMS level is at or above `thresholdDbov` (-dBov, so lower is louder);
 * an utterance starts at the first voiced frame (with `prerollMs` of what came before) and ends
 * after `silenceMs` without a voiced frame, or at `maxUtteranceMs`. Utterances with less than
 * `minSpeechMs` of voiced audio (clicks, bumps) are dropped. Deterministic: no clock, only frames.
 */
import { AGENT_FRAME_MS } from '../../core/provider.js'

export interface SegmenterOptions {
  readonly thresholdDbov: number
  readonly silenceMs: number
  readonly prerollMs: number
  readonly minSpeechMs: number
  readonly maxUtteranceMs: number
}

/** RMS level of 16-bit PCM in -dBov (0 loudest, 127 silent), the RFC 6464 scale. */
export const levelDbov = (pcm: Int16Array): number => {
  let sum = 0
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!
  const rms = Math.sqrt(sum / Math.max(1, pcm.length)) / 32768
  return rms > 0 ? Math.min(127, Math.max(0, -20 * Math.log10(rms))) : 127
}

export class UtteranceSegmenter {
  private readonly preroll: Int16Array[] = []
  private frames: Int16Array[] | null = null
  private voicedMs = 0
  private silentRun = 0
  private lastVoicedIndex = 0

  constructor(
    private readonly options: SegmenterOptions,
    private readonly utterance: (pcm: Int16Array, voicedMs: number) => void,
  ) {}

  /** True while an utterance is being collected. */
  get inSpeech(): boolean {
    return this.frames !== null
  }

  push(frame: Int16Array): void {
    const o = this.options
    const voiced = levelDbov(frame) <= o.thresholdDbov
    if (this.frames === null) {
      if (!voiced) {
        this.preroll.push(frame)
        while (this.preroll.length * AGENT_FRAME_MS > o.prerollMs) this.preroll.shift()
        return
      }
      this.frames = this.preroll.splice(0)
      this.voicedMs = 0
      this.silentRun = 0
    }
    this.frames.push(frame)
    if (voiced) {
      this.voicedMs += AGENT_FRAME_MS
      this.silentRun = 0
      this.lastVoicedIndex = this.frames.length - 1
    } else {
      this.silentRun += AGENT_FRAME_MS
    }
    if (this.silentRun >= o.silenceMs || this.frames.length * AGENT_FRAME_MS >= o.maxUtteranceMs) this.end()
  }

  /** The talker said its turn is over: end the utterance being collected now (nothing when there is none). */
  finish(): void {
    if (this.frames !== null) this.end()
  }

  private end(): void {
    const frames = this.frames!
    this.frames = null
    // Trailing silence is not played back: the utterance ends one frame after its last voiced frame.
    const kept = frames.slice(0, Math.min(frames.length, this.lastVoicedIndex + 2))
    if (this.voicedMs < this.options.minSpeechMs) return
    const pcm = new Int16Array(kept.reduce((n, f) => n + f.length, 0))
    let at = 0
    for (const f of kept) {
      pcm.set(f, at)
      at += f.length
    }
    this.utterance(pcm, this.voicedMs)
  }
}
