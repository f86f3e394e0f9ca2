/**
 * Per-source voice activity from the uplink V|level byte (RFC 6464 semantics), as SFUs do with
 * the RTP audio-level extension: no decoding on the hot path. A source starts speaking after
 * two consecutive voiced frames and stops after `hangoverMs` without one; transitions are
 * reported to the control plane, which is the only thing that allocates.
 */
import { levelOf, voiceFlag } from './frame.js'

export interface SourceActivity {
  speaking: boolean
  voicedRun: number
  lastVoicedAt: number
  /** Smoothed level in -dBov (lower is louder), for picking an active speaker. */
  level: number
}

export const newSourceActivity = (): SourceActivity => ({ speaking: false, voicedRun: 0, lastVoicedAt: 0, level: 127 })

export const START_RUN = 2
export const DEFAULT_HANGOVER_MS = 400

/**
 * Observe one frame. Returns true when the source just started speaking (the caller reports it);
 * stopping is found by `expire`, because a silent source may send nothing at all.
 */
export const observeFrame = (a: SourceActivity, levelByte: number, now: number): boolean => {
  a.level = a.level + (levelOf(levelByte) - a.level) * 0.25
  if (!voiceFlag(levelByte)) {
    a.voicedRun = 0
    return false
  }
  a.lastVoicedAt = now
  if (a.speaking) return false
  if (++a.voicedRun < START_RUN) return false
  a.speaking = true
  return true
}

/** True when a speaking source has been unvoiced for longer than the hangover (it is marked stopped). */
export const expire = (a: SourceActivity, now: number, hangoverMs = DEFAULT_HANGOVER_MS): boolean => {
  if (!a.speaking || now - a.lastVoicedAt < hangoverMs) return false
  a.speaking = false
  a.voicedRun = 0
  return true
}
