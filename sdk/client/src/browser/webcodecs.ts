/**
 * Sound for a WebSocket session in a browser (imported only then): the microphone as 16 kHz PCM
 * (an AudioWorklet cuts it into 20 ms frames) encoded to Opus with WebCodecs' AudioEncoder, each
 * packet sent behind its V|level byte; the room's frames decoded with one AudioDecoder per source
 * id and scheduled on a Web Audio clock with a small jitter buffer per source.
 *
 * The jitter buffer: a source's first frame (and any frame after it ran dry) is scheduled
 * TARGET_DELAY_S ahead, the next ones back to back; a frame that would start more than
 * MAX_DELAY_S ahead is dropped, so a burst never builds lasting latency.
 */
import { LEVEL_UNKNOWN, levelByteFromFloat, SAMPLE_RATE, uplinkFrame } from '../protocol.js'
import type { BrowserAudio } from './audio.js'

const FRAME_SAMPLES = SAMPLE_RATE / 50
const FRAME_US = 20_000
const TARGET_DELAY_S = 0.06
const MAX_DELAY_S = 0.3

/** Runs on the audio thread: collects the input into 20 ms frames and hands each over. */
const CAPTURE_WORKLET = `
class HarkCapture extends AudioWorkletProcessor {
  constructor() { super(); this.frame = new Float32Array(${FRAME_SAMPLES}); this.filled = 0 }
  process(inputs) {
    const input = inputs[0] && inputs[0][0]
    if (!input) return true
    let i = 0
    while (i < input.length) {
      const n = Math.min(input.length - i, ${FRAME_SAMPLES} - this.filled)
      this.frame.set(input.subarray(i, i + n), this.filled)
      this.filled += n
      i += n
      if (this.filled === ${FRAME_SAMPLES}) {
        this.port.postMessage(this.frame, [this.frame.buffer])
        this.frame = new Float32Array(${FRAME_SAMPLES})
        this.filled = 0
      }
    }
    return true
  }
}
registerProcessor('hark-capture', HarkCapture)
`

interface Source {
  readonly decoder: AudioDecoder
  timestamp: number
  next: number
}

export class WebCodecsAudio {
  readonly context = new AudioContext({ sampleRate: SAMPLE_RATE })
  private readonly output: GainNode
  private readonly analyser: AnalyserNode
  private readonly samples: Float32Array<ArrayBuffer>
  private readonly sources = new Map<number, Source>()
  private encoder: AudioEncoder | null = null
  private capture: { source: MediaStreamAudioSourceNode; node: AudioWorkletNode } | null = null
  private readonly levels: number[] = []
  private timestamp = 0

  private constructor(
    private readonly audio: BrowserAudio,
    private readonly send: (frame: Uint8Array<ArrayBuffer>) => void,
    private readonly failed: (error: unknown) => void,
  ) {
    this.output = this.context.createGain()
    this.analyser = this.context.createAnalyser()
    this.analyser.fftSize = 1024
    this.samples = new Float32Array(this.analyser.fftSize)
    this.output.connect(this.analyser)
    if (audio.wantsOutput) this.output.connect(this.context.destination)
  }

  static async start(audio: BrowserAudio, send: (frame: Uint8Array<ArrayBuffer>) => void, failed: (error: unknown) => void): Promise<WebCodecsAudio> {
    if (typeof AudioEncoder === 'undefined' || typeof AudioDecoder === 'undefined') {
      throw new Error('this browser has no WebCodecs audio (AudioEncoder/AudioDecoder; it needs a secure context): use transport "webrtc"')
    }
    const sound = new WebCodecsAudio(audio, send, failed)
    if (audio.stream) {
      const url = URL.createObjectURL(new Blob([CAPTURE_WORKLET], { type: 'text/javascript' }))
      try {
        await sound.context.audioWorklet.addModule(url)
      } finally {
        URL.revokeObjectURL(url)
      }
      sound.encoder = new AudioEncoder({ output: (chunk) => sound.encoded(chunk), error: failed })
      sound.encoder.configure({ codec: 'opus', sampleRate: SAMPLE_RATE, numberOfChannels: 1, bitrate: 24_000, opus: { frameDuration: FRAME_US } } as AudioEncoderConfig)
      sound.attach()
    }
    void sound.context.resume().catch(() => undefined)
    return sound
  }

  /** The microphone changed (a device switch): capture the new one. */
  attach(): void {
    this.capture?.source.disconnect()
    this.capture?.node.port.close()
    this.capture = null
    const stream = this.audio.stream
    if (!stream || !this.encoder) return
    const source = this.context.createMediaStreamSource(stream)
    const node = new AudioWorkletNode(this.context, 'hark-capture', { numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1 })
    node.port.onmessage = (e: MessageEvent<Float32Array<ArrayBuffer>>) => this.captured(e.data)
    source.connect(node)
    this.capture = { source, node }
  }

  /** One downlink frame of `sourceId`: decode it, then schedule it. */
  play(opus: Uint8Array, sourceId: number): void {
    if (!this.audio.wantsOutput) return
    let source = this.sources.get(sourceId)
    if (!source) {
      const decoder = new AudioDecoder({ output: (data) => this.schedule(source!, data), error: () => this.sources.delete(sourceId) })
      decoder.configure({ codec: 'opus', sampleRate: SAMPLE_RATE, numberOfChannels: 1 })
      source = { decoder, timestamp: 0, next: 0 }
      this.sources.set(sourceId, source)
    }
    if (source.decoder.state !== 'configured') return
    source.decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp: (source.timestamp += FRAME_US), data: opus }))
  }

  /** A source left, or every source (a room change: source ids of the old room mean nothing). */
  forget(sourceId?: number): void {
    for (const [id, source] of this.sources) {
      if (sourceId !== undefined && id !== sourceId) continue
      if (source.decoder.state !== 'closed') source.decoder.close()
      this.sources.delete(id)
    }
  }

  /** What is being played now, 0 … 1 (RMS). */
  outputLevel(): number {
    this.analyser.getFloatTimeDomainData(this.samples)
    let sum = 0
    for (let i = 0; i < this.samples.length; i++) sum += this.samples[i]! * this.samples[i]!
    return Math.sqrt(sum / this.samples.length)
  }

  stop(): void {
    this.forget()
    this.capture?.source.disconnect()
    this.capture?.node.port.close()
    if (this.encoder && this.encoder.state !== 'closed') this.encoder.close()
    void this.context.close().catch(() => undefined)
  }

  private captured(pcm: Float32Array<ArrayBuffer>): void {
    const encoder = this.encoder
    if (!encoder || encoder.state !== 'configured' || this.audio.muted) return
    this.levels.push(levelByteFromFloat(pcm))
    const data = new AudioData({ format: 'f32', sampleRate: SAMPLE_RATE, numberOfFrames: pcm.length, numberOfChannels: 1, timestamp: this.timestamp, data: pcm })
    this.timestamp += FRAME_US
    encoder.encode(data)
    data.close()
  }

  private encoded(chunk: EncodedAudioChunk): void {
    const opus = new Uint8Array(chunk.byteLength)
    chunk.copyTo(opus)
    // One packet per 20 ms input frame: the levels queue in the same order.
    this.send(uplinkFrame(opus, this.levels.shift() ?? LEVEL_UNKNOWN))
  }

  private schedule(source: Source, data: AudioData): void {
    try {
      const now = this.context.currentTime
      if (source.next < now) source.next = now + TARGET_DELAY_S
      else if (source.next - now > MAX_DELAY_S) return
      const buffer = this.context.createBuffer(1, data.numberOfFrames, data.sampleRate)
      data.copyTo(buffer.getChannelData(0), { planeIndex: 0, format: 'f32-planar' })
      const node = this.context.createBufferSource()
      node.buffer = buffer
      node.connect(this.output)
      node.start(source.next)
      source.next += buffer.duration
    } catch (error) {
      this.failed(error)
    } finally {
      data.close()
    }
  }
}
