/**
 * A browser session's sound: the microphone (capture, mute, device choice, input level) and the
 * room's playback (an audio element for the WebRTC track; over WebSocket, the WebCodecs path in
 * `webcodecs.ts`, imported only when a WebSocket session in a browser plays or captures sound).
 */
import { ConfigurationError } from '../errors.js'

export interface BrowserAudioOptions {
  /** Capture the microphone (default true); or the getUserMedia audio constraints to capture with. */
  readonly input?: boolean | MediaTrackConstraints
  /** Play the room (default true). */
  readonly output?: boolean
  /** The microphone to use (a `deviceId` of `listAudioDevices()`). */
  readonly inputDeviceId?: string
  /** The speaker to play on, where the browser can choose (`setSinkId`). */
  readonly outputDeviceId?: string
  /** Start muted. */
  readonly muted?: boolean
}

/** The audio devices the page may use (labels appear once the page was granted the microphone). */
export const listAudioDevices = async (): Promise<{ inputs: MediaDeviceInfo[]; outputs: MediaDeviceInfo[] }> => {
  const all = await navigator.mediaDevices.enumerateDevices()
  return { inputs: all.filter((d) => d.kind === 'audioinput'), outputs: all.filter((d) => d.kind === 'audiooutput') }
}

type SinkSettable = { setSinkId?: (id: string) => Promise<void> }

export class BrowserAudio {
  stream: MediaStream | null = null
  muted: boolean
  /** Told when the microphone track changes (a device switch). */
  onTrack: (track: MediaStreamTrack | null) => void = () => {}
  private element: HTMLAudioElement | null = null
  private meter: { context: AudioContext; analyser: AnalyserNode; source: MediaStreamAudioSourceNode | null; samples: Float32Array<ArrayBuffer> } | null = null
  private outputDeviceId: string | undefined

  constructor(readonly options: BrowserAudioOptions) {
    this.muted = options.muted ?? false
    this.outputDeviceId = options.outputDeviceId
  }

  get wantsInput(): boolean {
    return this.options.input !== false
  }

  get wantsOutput(): boolean {
    return this.options.output !== false
  }

  /** Open the microphone (asks the user the first time). */
  async start(): Promise<void> {
    if (!this.wantsInput || this.stream) return
    this.stream = await this.capture(this.options.inputDeviceId)
    this.applyMute()
  }

  track(): MediaStreamTrack | null {
    return this.stream?.getAudioTracks()[0] ?? null
  }

  /** Play a WebRTC track through an audio element (Chromium plays remote WebRTC audio only through one). */
  play(track: MediaStreamTrack): void {
    if (!this.wantsOutput) return
    const element = (this.element ??= new Audio())
    element.autoplay = true
    element.srcObject = new MediaStream([track])
    if (this.outputDeviceId) void (element as SinkSettable).setSinkId?.(this.outputDeviceId)
    void element.play().catch(() => undefined)
  }

  setMuted(muted: boolean): void {
    this.muted = muted
    this.applyMute()
  }

  /** Switch microphones: a new track replaces the old one in the running session. */
  async setInputDevice(deviceId: string): Promise<void> {
    if (!this.wantsInput) throw new ConfigurationError('this session captures no microphone (audio.input is false)', 'no_input')
    const next = await this.capture(deviceId)
    const old = this.stream
    this.stream = next
    this.applyMute()
    this.meterSource()
    this.onTrack(this.track())
    for (const t of old?.getTracks() ?? []) t.stop()
  }

  /** Play on another speaker (browsers with `setSinkId`); `sinks` are the other outputs to move too (the WebCodecs player's context). */
  async setOutputDevice(deviceId: string, ...sinks: ReadonlyArray<SinkSettable>): Promise<void> {
    this.outputDeviceId = deviceId
    for (const sink of [this.element, ...sinks]) {
      const target = sink as SinkSettable | null
      if (!target) continue
      if (!target.setSinkId) throw new ConfigurationError('this browser cannot choose the output device (no setSinkId)', 'no_sink_selection')
      await target.setSinkId(deviceId)
    }
  }

  /** The microphone's level now, 0 (silence or muted) … 1 (full scale), as RMS; the meter starts on first use. */
  inputLevel(): number {
    if (this.muted || !this.stream) return 0
    if (!this.meter) {
      const context = new AudioContext()
      const analyser = context.createAnalyser()
      analyser.fftSize = 1024
      this.meter = { context, analyser, source: null, samples: new Float32Array(analyser.fftSize) }
      this.meterSource()
    }
    const { analyser, samples } = this.meter
    analyser.getFloatTimeDomainData(samples)
    let sum = 0
    for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!
    return Math.sqrt(sum / samples.length)
  }

  stop(): void {
    for (const t of this.stream?.getTracks() ?? []) t.stop()
    this.stream = null
    if (this.element) this.element.srcObject = null
    void this.meter?.context.close()
    this.meter = null
  }

  private async capture(deviceId: string | undefined): Promise<MediaStream> {
    if (!navigator.mediaDevices?.getUserMedia) throw new ConfigurationError('this page cannot use a microphone (no getUserMedia: not a secure context?)', 'no_microphone')
    const base: MediaTrackConstraints = typeof this.options.input === 'object' ? this.options.input : { echoCancellation: true, noiseSuppression: true, autoGainControl: true }
    return navigator.mediaDevices.getUserMedia({ audio: deviceId ? { ...base, deviceId: { exact: deviceId } } : base })
  }

  private applyMute(): void {
    for (const t of this.stream?.getAudioTracks() ?? []) t.enabled = !this.muted
  }

  private meterSource(): void {
    if (!this.meter) return
    this.meter.source?.disconnect()
    this.meter.source = this.stream ? this.meter.context.createMediaStreamSource(this.stream) : null
    this.meter.source?.connect(this.meter.analyser)
  }
}
