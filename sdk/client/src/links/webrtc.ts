/**
 * The WebRTC binding (spec/webrtc.md), for browsers: the ICE servers fetched with the token, one
 * peer connection with the microphone track (or a receive-only transceiver) and the data channel
 * `hark`, one complete offer POSTed with the token in the Authorization header, the answer's
 * `Location` kept to leave with `DELETE`. Events and control messages travel on the data
 * channel; the room's mixed audio arrives as one track.
 */
import { ConnectionError, ConnectionLostError, connectionError, ConfigurationError, errorFromHttp, type HarkClientError } from '../errors.js'
import type { GatewayUrls, Link, LinkHandlers, LinkOpener } from './link.js'

export interface WebRtcMedia {
  /** The microphone track to send, or null to only listen. */
  track(): MediaStreamTrack | null
  /** The room's audio track arrived: play it. */
  played(track: MediaStreamTrack): void
}

export interface WebRtcLink extends Link {
  /** Send another microphone track (a device switch) without a new offer. */
  replaceTrack(track: MediaStreamTrack | null): Promise<void>
  readonly peer: RTCPeerConnection
}

/** How long candidate gathering may take before the offer goes with what was found. */
const GATHER_TIMEOUT_MS = 3000
/** From the answer to the data channel opening (the server's own limit is 10 s). */
const OPEN_TIMEOUT_MS = 12_000

const request = async (url: string, init: RequestInit): Promise<Response> => {
  try {
    return await fetch(url, { ...init, cache: 'no-store' })
  } catch (error) {
    throw connectionError(url, error)
  }
}

const gathered = (pc: RTCPeerConnection): Promise<void> =>
  new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve()
    const timer = setTimeout(done, GATHER_TIMEOUT_MS)
    function done() {
      clearTimeout(timer)
      pc.removeEventListener('icegatheringstatechange', check)
      resolve()
    }
    function check() {
      if (pc.iceGatheringState === 'complete') done()
    }
    pc.addEventListener('icegatheringstatechange', check)
  })

export const webRtcLink = (urls: GatewayUrls, media: WebRtcMedia): LinkOpener => ({
  transport: 'webrtc',
  open: async (token: string, handlers: LinkHandlers): Promise<WebRtcLink> => {
    if (typeof RTCPeerConnection === 'undefined') {
      throw new ConfigurationError('WebRTC needs a browser (RTCPeerConnection); use transport: "websocket" here', 'webrtc_unavailable')
    }
    const auth = { authorization: `Bearer ${token}` }
    const ice = await request(`${urls.http}/v1/webrtc/ice-servers`, { headers: auth })
    if (!ice.ok) throw errorFromHttp(ice.status, await ice.text(), ice.headers.get('retry-after'))
    const { iceServers } = (await ice.json()) as { iceServers: RTCIceServer[] }
    const pc = new RTCPeerConnection({ iceServers })
    let leaving = false
    let location: string | null = null
    try {
      const track = media.track()
      const transceiver = track ? pc.addTransceiver(track, { direction: 'sendrecv' }) : pc.addTransceiver('audio', { direction: 'recvonly' })
      const channel = pc.createDataChannel('hark')
      pc.ontrack = (e) => media.played(e.track)
      await pc.setLocalDescription(await pc.createOffer())
      await gathered(pc)
      const res = await request(`${urls.http}/v1/webrtc/offer`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/sdp' },
        body: pc.localDescription!.sdp,
      })
      if (res.status !== 201) throw errorFromHttp(res.status, await res.text(), res.headers.get('retry-after'))
      location = res.headers.get('location')
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() })
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new ConnectionError('the WebRTC connection did not open (ICE or DTLS failed)', 'webrtc_timeout')), OPEN_TIMEOUT_MS)
        channel.onopen = () => {
          clearTimeout(timer)
          resolve()
        }
        pc.onconnectionstatechange = () => {
          if (pc.connectionState !== 'failed') return
          clearTimeout(timer)
          reject(new ConnectionError('the WebRTC connection failed (ICE or DTLS)', 'webrtc_failed'))
        }
      })
      let gone = false
      const lost = (error: HarkClientError) => {
        if (gone || leaving) return
        gone = true
        pc.close()
        handlers.closed(error)
      }
      channel.onmessage = (e) => handlers.event(String(e.data))
      channel.onclose = () => lost(new ConnectionLostError('the WebRTC data channel closed', 'connection_lost'))
      pc.onconnectionstatechange = () => {
        if (pc.connectionState === 'failed') lost(new ConnectionLostError('the WebRTC connection failed', 'connection_lost'))
      }
      return {
        peer: pc,
        sendControl: (text) => {
          if (channel.readyState === 'open') channel.send(text)
        },
        sendAudio: () => false,
        replaceTrack: (next) => transceiver.sender.replaceTrack(next),
        close: async () => {
          if (leaving) return
          leaving = true
          // DELETE ends the session at once (the room hears participant.left); closing the peer alone would too.
          if (location && !gone) await fetch(`${urls.http}${location}`, { method: 'DELETE', headers: auth }).catch(() => undefined)
          pc.close()
        },
      }
    } catch (error) {
      leaving = true
      pc.close()
      throw error
    }
  },
})
