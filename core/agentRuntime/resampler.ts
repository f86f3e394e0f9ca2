/**
 * Streaming 16-bit PCM sample-rate conversion for agent providers (16 kHz room audio <-> a model's
 * 24 kHz, say) with libsamplerate (band-limited sinc, its "fastest" converter), keeping filter
 * state across chunks so a stream cut into 20 ms pieces resamples as one. Offered by
 * `hark/provider`; libsamplerate's wasm module is loaded by the first `create`, not with the entry.
 */
import type libsamplerate from '@alexanderolsen/libsamplerate-js'

type Src = Awaited<ReturnType<typeof libsamplerate.create>>

export class PcmResampler {
  private constructor(private src: Src | null) {}

  static async create(fromRate: number, toRate: number): Promise<PcmResampler> {
    const { default: libsamplerate } = await import('@alexanderolsen/libsamplerate-js')
    const src = await libsamplerate.create(1, fromRate, toRate, { converterType: libsamplerate.ConverterType.SRC_SINC_FASTEST })
    return new PcmResampler(src)
  }

  /** Resample the next chunk of the stream (the output length follows the rate ratio over time). */
  process(pcm: Int16Array): Int16Array {
    if (!this.src || pcm.length === 0) return new Int16Array(0)
    const input = new Float32Array(pcm.length)
    for (let i = 0; i < pcm.length; i++) input[i] = pcm[i]! / 32768
    const output = this.src.full(input)
    const out = new Int16Array(output.length)
    for (let i = 0; i < output.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(output[i]! * 32768)))
    return out
  }

  close(): void {
    this.src?.destroy()
    this.src = null
  }
}

/** Little-endian 16-bit PCM <-> base64, as JSON protocols (the OpenAI Realtime API) carry audio. */
export const pcmToBase64 = (pcm: Int16Array): string =>
  Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64')

export const base64ToPcm = (b64: string): Int16Array => {
  const bytes = Buffer.from(b64, 'base64')
  const pcm = new Int16Array(bytes.length >> 1)
  for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(i * 2)
  return pcm
}
