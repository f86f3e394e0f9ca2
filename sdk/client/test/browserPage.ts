/**
 * The page of the @hark/client browser tests: it imports the package as a browser gets it (the
 * built ES modules, served by the test) and connects with the query's gateway, token and
 * transport. `window.hark` holds what the test waits on: the session's state and events, audio
 * frames per source, reconnections, the typed error it failed or closed with, and the inbound
 * RTP stats of its peer connection (recorded by wrapping RTCPeerConnection, which the SDK makes).
 */
export const SDK_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>@hark/client test page</title></head><body>
<script type="module">
const peers = []
const Native = window.RTCPeerConnection
window.RTCPeerConnection = class extends Native {
  constructor(config) { super(config); peers.push(this) }
}
const params = new URLSearchParams(location.search)
const error = (e) => e && { name: e.name, code: e.code, message: e.message, status: e.status, closeCode: e.closeCode }
const hark = (window.hark = { events: [], states: [], reconnecting: [], reconnected: 0, frames: {}, failed: null, closed: null, session: null })
// The peer connection's inbound audio stats, read in the background (getStats is async, snapshot is not).
setInterval(() => {
  const pc = peers.at(-1)
  // A new peer connection (a reconnection) starts its stats from nothing.
  if (pc !== hark.statsOf) {
    hark.statsOf = pc
    hark.inbound = null
  }
  if (pc && pc.connectionState !== 'closed') pc.getStats().then((stats) => stats.forEach((r) => { if (r.type === 'inbound-rtp' && r.kind === 'audio' && pc === hark.statsOf) hark.inbound = r }))
}, 100)
hark.snapshot = () => {
  const s = hark.session
  return s && {
    state: s.state, sessionId: s.sessionId, clientId: s.clientId, room: s.room, sourceId: s.sourceId, audioMode: s.audioMode,
    participants: [...s.participants.values()], speaking: [...s.speaking], muted: s.muted,
    inputLevel: s.inputLevel(), outputLevel: s.outputLevel(), inbound: hark.inbound ?? null,
  }
}
try {
  const sdk = (hark.sdk = await import('/sdk/index.js'))
  const { connect } = sdk
  const session = await connect({
    url: params.get('url'),
    token: params.get('token'),
    transport: params.get('transport'),
    audio: { input: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } },
    reconnect: { initialDelayMs: 200, maxDelayMs: 1000, maxAttempts: 30 },
  })
  hark.session = session
  session.on('event', (e) => hark.events.push(e))
  session.on('state', (s) => hark.states.push(s))
  session.on('reconnecting', (r) => hark.reconnecting.push({ attempt: r.attempt, delayMs: r.delayMs, error: error(r.error) }))
  session.on('reconnected', () => hark.reconnected++)
  session.on('closed', (e) => (hark.closed = e ? error(e) : 'left'))
  session.on('audio', (opus, sourceId) => (hark.frames[sourceId] = (hark.frames[sourceId] ?? 0) + 1))
  session.on('audioError', (e) => (hark.audioError = String(e)))
} catch (e) {
  hark.failed = error(e)
}
hark.ready = true
</script>
</body></html>`
