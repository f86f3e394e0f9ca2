/**
 * Per-connection rate limits of terminal protocol v1 (spec/terminal-protocol.md, "Limits"), the
 * same numbers every binding applies: uplink audio beyond the rate is dropped, control messages
 * beyond theirs close the session (rate_limited).
 */
export const AUDIO_FRAMES_PER_SECOND = 100
export const AUDIO_FRAME_BURST = 50
export const CONTROL_MESSAGES_PER_SECOND = 20
export const CONTROL_MESSAGE_BURST = 40
