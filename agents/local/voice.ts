/**
 * Text-to-speech for local agents: flite, one voice per preset (slt, kal16, awb, rms at 16 kHz;
 * kal at 8 kHz, resampled to 16 kHz). Synthesis runs on libuv's thread pool, one sentence at a
 * time per thread (flite's voices are shared in the process), so a provider worker keeps handling
 * its other agents' audio meanwhile. Text reaches flite as printable ASCII of bounded length.
 */
import { PcmResampler } from '../../core/provider.js'
import { FLITE_VOICES, type FliteVoice, type LocalEngines } from './engines.js'
import { fliteLib } from './native.js'

/** Longest text handed to flite at once (a sentence longer than this is cut). */
export const MAX_SENTENCE_CHARS = 400

/** What flite may be given: printable ASCII, typographic quotes and dashes folded, the rest dropped. */
export const speakable = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, ', ')
    .replace(/[^\x20-\x7e]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_SENTENCE_CHARS)

/** One sentence at a time in this thread. */
let queue: Promise<unknown> = Promise.resolve()

export class Voice {
  private resampler: Promise<PcmResampler> | null = null

  private constructor(
    private readonly engines: LocalEngines,
    readonly name: FliteVoice,
  ) {}

  static open(engines: LocalEngines, name: FliteVoice): Voice {
    const voice = new Voice(engines, name)
    // Registered now (a few ms), not at the first reply.
    fliteLib(engines.flite!.library).voice(engines.flite!.voices[name]!, name)
    return voice
  }

  /** 16 kHz PCM of `text` (empty for nothing speakable). */
  async say(text: string): Promise<Int16Array> {
    const clean = speakable(text)
    if (!/[a-z0-9]/i.test(clean)) return new Int16Array(0)
    const lib = fliteLib(this.engines.flite!.library)
    const v = lib.voice(this.engines.flite!.voices[this.name]!, this.name)
    const run = queue.then(() => lib.synth(v, clean))
    queue = run.catch(() => undefined)
    const { pcm, rate } = await run
    if (rate === 16_000) return pcm
    this.resampler ??= PcmResampler.create(rate, 16_000)
    const out = (await this.resampler).process(pcm)
    return out
  }

  close(): void {
    void this.resampler?.then((r) => r.close())
    this.resampler = null
  }

  /** The rate flite speaks this voice at. */
  get rate(): number {
    return FLITE_VOICES[this.name]
  }
}
