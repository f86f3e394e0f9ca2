/**
 * What the room heard of an agent's reply: providers publish a reply's transcript only once its
 * audio has been played, and after a barge-in only the words that were heard, estimated from the
 * share of the reply's audio that was played.
 */
import type { AgentAudioOut } from '../agentProvider.js'

/** The first `share` (0..1) of `text`, cut at a word boundary. */
export const heardText = (text: string, share: number): string => {
  const words = text.trim().split(/\s+/).filter((w) => w.length > 0)
  const keep = Math.max(0, Math.min(words.length, Math.round(words.length * share)))
  return words.slice(0, keep).join(' ')
}

/**
 * What the room heard of a reply spoken as `spoken` (its sentences in order, each with the ms of
 * audio it took) when `heardMs` of that audio had been played: whole sentences, then the heard
 * share of the one cut off, joined by spaces.
 */
export const heardOfSpoken = (spoken: ReadonlyArray<{ readonly text: string; readonly ms: number }>, heardMs: number): string => {
  const heard: string[] = []
  let at = 0
  for (const s of spoken) {
    if (at + s.ms <= heardMs) heard.push(s.text)
    else {
      heard.push(heardText(s.text, (heardMs - at) / s.ms))
      break
    }
    at += s.ms
  }
  return heard.filter((t) => t.length > 0).join(' ')
}

/**
 * Resolves once at most `leftMs` of what was pushed to `audio` is still to be played (0: all of it
 * has been played); false if `signal` aborted first.
 */
export const whenPlayed = (audio: AgentAudioOut, signal: AbortSignal, leftMs = 0): Promise<boolean> =>
  new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const check = () => {
      if (signal.aborted) return onAbort()
      const pendingMs = audio.pendingMs - leftMs
      if (pendingMs <= 0) {
        signal.removeEventListener('abort', onAbort)
        resolve(true)
        return
      }
      timer = setTimeout(check, Math.ceil(pendingMs) + 5)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    check()
  })
