/**
 * The web page of the Chromium test, written the way a web client of Hark would be: microphone
 * track, a data channel named "hark", a non-trickle offer posted with the client token in one
 * Authorization header (cross-origin: the page is served by the test, the gateway is another
 * origin), the answer applied, events collected. `window.hark` exposes what the test waits on.
 */
export const BROWSER_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>hark webrtc test</title></head><body>
<script>
const params = new URLSearchParams(location.search)
const hark = (window.hark = { events: [], state: 'starting', error: null, location: null, channelClosed: false, inbound: null })

async function start() {
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
  })
  const pc = (window.pc = new RTCPeerConnection())
  for (const track of stream.getAudioTracks()) pc.addTrack(track, stream)
  const channel = pc.createDataChannel('hark')
  channel.onmessage = (e) => hark.events.push(JSON.parse(e.data))
  channel.onclose = () => (hark.channelClosed = true)
  pc.ontrack = (e) => {
    // Play the room: remote audio is decoded (and its energy measured) while a sink plays it.
    const audio = new Audio()
    audio.srcObject = new MediaStream([e.track])
    audio.play().catch((err) => (hark.playError = String(err)))
  }
  pc.onconnectionstatechange = () => (hark.connection = pc.connectionState)
  await pc.setLocalDescription(await pc.createOffer())
  if (pc.iceGatheringState !== 'complete') {
    await new Promise((resolve) => pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve()))
  }
  const res = await fetch(params.get('gateway') + '/v1/webrtc/offer', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + params.get('token'), 'content-type': 'application/sdp' },
    body: pc.localDescription.sdp,
  })
  if (res.status !== 201) throw new Error('offer refused: ' + res.status + ' ' + (await res.text()))
  hark.location = res.headers.get('location')
  await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() })
  hark.state = 'answered'
}

/** The inbound audio stream's statistics (getStats), or null before there is one. */
window.inboundAudio = async () => {
  let found = null
  ;(await window.pc.getStats()).forEach((s) => {
    if (s.type === 'inbound-rtp' && s.kind === 'audio') found = s
  })
  return found && {
    packetsReceived: found.packetsReceived,
    packetsLost: found.packetsLost,
    totalAudioEnergy: found.totalAudioEnergy,
    audioLevel: found.audioLevel,
    totalSamplesReceived: found.totalSamplesReceived,
    concealedSamples: found.concealedSamples,
    silentConcealedSamples: found.silentConcealedSamples,
    concealmentEvents: found.concealmentEvents,
  }
}

// Keep the latest inbound statistics on window.hark, so the test can wait on them synchronously.
setInterval(async () => {
  if (window.pc) hark.inbound = await window.inboundAudio()
}, 100)

start().catch((err) => {
  hark.error = String(err && err.stack || err)
  hark.state = 'failed'
})
</script></body></html>`
