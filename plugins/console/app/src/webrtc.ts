/**
 * Joining a room from this browser: the console makes an ephemeral client of the room (kind
 * `console`) and hands back its token and the gateway's port; the browser then connects to the
 * gateway itself like any WebRTC terminal (spec/webrtc.md): microphone track, data channel
 * `hark`, one complete offer with the token in the Authorization header, the room's mixed audio
 * played back. Leaving deletes the peer and stops the microphone.
 */
import { post } from './api'

export interface Joined {
  readonly clientId: string
  readonly room: string
  /** Events the room sent on the data channel (session, participant.joined, …). */
  readonly events: ReadonlyArray<{ type: string }>
  leave(): Promise<void>
}

interface JoinAnswer {
  readonly token: string
  readonly clientId: string
  readonly room: string
  readonly gateway: { readonly port: number | null }
}

export const joinRoom = async (workspaceId: string, room: string, onEvent: (e: { type: string }) => void): Promise<Joined> => {
  if (!navigator.mediaDevices?.getUserMedia) throw new Error('This browser cannot use a microphone here.')
  const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } })
  let pc: RTCPeerConnection | null = null
  try {
    const j = await post<JoinAnswer>(`/workspaces/${workspaceId}/rooms/${encodeURIComponent(room)}/join`)
    if (j.gateway.port === null) throw new Error('The engine has no gateway listening.')
    const gateway = `https://${location.hostname}:${j.gateway.port}`
    const auth = { authorization: `Bearer ${j.token}` }
    const ice = await fetch(`${gateway}/v1/webrtc/ice-servers`, { headers: auth }).then((r) => (r.ok ? (r.json() as Promise<{ iceServers: RTCIceServer[] }>) : { iceServers: [] }))
    pc = new RTCPeerConnection({ iceServers: ice.iceServers })
    const peer = pc
    for (const track of stream.getAudioTracks()) peer.addTrack(track, stream)
    const events: Array<{ type: string }> = []
    const channel = peer.createDataChannel('hark')
    channel.onmessage = (e) => {
      const event = JSON.parse(String(e.data)) as { type: string }
      events.push(event)
      onEvent(event)
    }
    const audio = new Audio()
    peer.ontrack = (e) => {
      audio.srcObject = new MediaStream([e.track])
      void audio.play().catch(() => undefined)
    }
    await peer.setLocalDescription(await peer.createOffer())
    if (peer.iceGatheringState !== 'complete') {
      await new Promise<void>((resolve) => peer.addEventListener('icegatheringstatechange', () => peer.iceGatheringState === 'complete' && resolve()))
    }
    const res = await fetch(`${gateway}/v1/webrtc/offer`, { method: 'POST', headers: { ...auth, 'content-type': 'application/sdp' }, body: peer.localDescription!.sdp })
    if (res.status !== 201) {
      const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null
      throw new Error(body?.error?.message ?? `the gateway refused the offer (${res.status})`)
    }
    const location_ = res.headers.get('location')
    await peer.setRemoteDescription({ type: 'answer', sdp: await res.text() })
    return {
      clientId: j.clientId,
      room: j.room,
      events,
      leave: async () => {
        if (location_) await fetch(`${gateway}${location_}`, { method: 'DELETE', headers: auth }).catch(() => undefined)
        peer.close()
        audio.srcObject = null
        for (const track of stream.getTracks()) track.stop()
      },
    }
  } catch (e) {
    pc?.close()
    for (const track of stream.getTracks()) track.stop()
    throw e
  }
}
