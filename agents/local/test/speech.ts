/**
 * Speech for the local agent's tests and bench: real speech (flite's voices, pocketsphinx's
 * recordings of people), sent as a terminal sends it (60 ms Opus packets with their level byte),
 * and the agent's reply heard back by pocketsphinx with a grammar of the replies it may give.
 */
import { readFileSync } from 'node:fs'
import { Encoder } from '@evan/opus'
import { levelByteFromPcm } from '../../../core/dataplane/frame.js'
import { loadDictionary } from '../dictionary.js'
import { findEngines, type FliteVoice } from '../engines.js'
import { compileCommands, type Intent } from '../grammar.js'
import { Recognizer } from '../recognizer.js'
import { Voice } from '../voice.js'

export const engines = findEngines({ modelDir: '/usr/share/pocketsphinx/model/en-us', libraryDirs: [] })
export const TESTDATA = '/usr/share/pocketsphinx/test/data'

const voices = new Map<FliteVoice, Voice>()
/** `text` spoken by flite's `voice`, 16 kHz. */
export const speak = (text: string, voice: FliteVoice = 'slt'): Promise<Int16Array> => {
  let v = voices.get(voice)
  if (!v) voices.set(voice, (v = Voice.open(engines, voice)))
  return v.say(text)
}

/** A recording of pocketsphinx-testdata: raw 16 kHz PCM, or a 16 kHz WAV's samples. */
export const recording = (file: string): Int16Array => {
  const bytes = readFileSync(`${TESTDATA}/${file}`)
  const start = file.endsWith('.wav') ? 44 : 0
  const pcm = new Int16Array((bytes.length - start) >> 1)
  for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(start + i * 2)
  return pcm
}

export const silence = (ms: number): Int16Array => new Int16Array(ms * 16)

/** White noise at `amplitude` (0..1), seeded. */
export const noise = (ms: number, amplitude = 0.3, seed = 7): Int16Array => {
  const pcm = new Int16Array(ms * 16)
  let x = seed
  for (let i = 0; i < pcm.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff
    pcm[i] = Math.round(((x / 0x7fffffff) * 2 - 1) * amplitude * 32767)
  }
  return pcm
}

export { concat } from '../../../core/test/speech.js'

/** Uplink frames as a terminal sends them: 60 ms Opus packets, each after its V|level byte. */
export const uplinkFrames = (pcm: Int16Array): Uint8Array[] => {
  const encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
  const frames: Uint8Array[] = []
  for (let at = 0; at < pcm.length; at += 960) {
    const chunk = new Int16Array(960)
    chunk.set(pcm.subarray(at, at + 960))
    const packet = encoder.encode(new Uint8Array(chunk.buffer))
    const frame = new Uint8Array(1 + packet.length)
    frame[0] = levelByteFromPcm(chunk)
    frame.set(packet, 1)
    frames.push(frame)
  }
  return frames
}

/**
 * Send `pcm` as a terminal would, faster than real time but within the uplink limit (100 frames/s
 * sustained): the agent's VAD decides on the audio, not on when it came.
 */
export const send = async (sendAudio: (frame: Uint8Array) => void, pcm: Int16Array, perSecond = 80): Promise<void> => {
  const frames = uplinkFrames(pcm)
  const start = performance.now()
  for (const [i, frame] of frames.entries()) {
    const wait = start + (i * 1000) / perSecond - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    sendAudio(frame)
  }
}

/** A recogniser of the replies `intents` can give (their templates with every slot filled), plus `others`. */
export const replyRecognizer = (replies: ReadonlyArray<string>): { hear(pcm: Int16Array): string; close(): void } => {
  const dict = loadDictionary(engines.model!.dictionary)
  const clean = (s: string) => s.toLowerCase().replace(/[^a-z' ]/g, ' ').replace(/\s+/g, ' ').trim()
  const intents: Intent[] = [{ name: 'reply', phrases: [...new Set(replies.map(clean))], reply: '-' }]
  const commands = compileCommands(intents, dict)
  const r = Recognizer.grammar(engines, dict, commands.words, {}, commands.jsgf)
  return {
    hear: (pcm) => {
      r.begin()
      for (let at = 0; at < pcm.length; at += 320) r.feed(pcm.subarray(at, at + 320))
      return r.finish()
    },
    close: () => r.close(),
  }
}
