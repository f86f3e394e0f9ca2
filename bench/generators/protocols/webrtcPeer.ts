/**
 * Room protocol "webrtc": one werift peer connection per terminal on loopback, like a browser:
 * an audio transceiver (Opus, with the RFC 6464 audio-level extension) and a data channel
 * named "hark", a non-trickle offer posted over HTTP(S), the answer applied, ready once the
 * server's `session` message arrives on the data channel (the terminal is in its room then).
 * A bench frame goes up as the payload of one RTP packet (voiced, −20 dBov in the extension,
 * 20 ms of timestamp per packet) and comes down as the payload of one, untouched.
 * Spoken by Hark's WebRTC transport (spec/webrtc.md) and by the bare werift forwarder peer.
 * Options: path (default /v1/webrtc/offer), tls (default true; self-signed accepted), auth
 * (default true: the credential as `Authorization: Bearer`; false: ?room=&client= instead).
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket, useAudioLevelIndication } from 'werift'
import type { RoomProtocol } from '../roomProtocol.js'

const AUDIO_LEVEL_URI = 'urn:ietf:params:rtp-hdrext:ssrc-audio-level'
/** Voiced, −20 dBov: what a talking terminal's packets carry. */
const LEVEL = Buffer.of(0x80 | 20)
const READY_TIMEOUT_MS = 30_000
const ignore = () => {}

const post = (url: URL, tls: boolean, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = (tls ? httpsRequest : httpRequest)(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, rejectUnauthorized: false, agent: false },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })

const protocol: RoomProtocol = {
  name: 'webrtc',
  connect: async (member, target, onFrame) => {
    const tls = target.options.tls !== false
    const auth = target.options.auth !== false
    const pc = new RTCPeerConnection({
      codecs: { audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })] },
      headerExtensions: { audio: [useAudioLevelIndication()] },
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: ['127.0.0.1'],
      bundlePolicy: 'max-bundle',
    })
    try {
      const transceiver = pc.addTransceiver('audio', { direction: 'sendrecv' })
      const channel = pc.createDataChannel('hark')
      pc.onTrack.subscribe((track) => track.onReceiveRtp.subscribe((rtp) => onFrame(rtp.payload)))
      const ready = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no session event in time')), READY_TIMEOUT_MS)
        channel.onMessage.subscribe((data) => {
          if (typeof data !== 'string') return
          const event = JSON.parse(data) as { type: string; room?: string | null; code?: string }
          if (event.type === 'session') {
            clearTimeout(timer)
            if (event.room === null) reject(new Error(`${member.clientId} has no room mapping`))
            else resolve()
          } else if (event.type === 'session.closing') {
            clearTimeout(timer)
            reject(new Error(`closed before session: ${event.code}`))
          }
        })
      })
      await pc.setLocalDescription(await pc.createOffer())
      if (pc.iceGatheringState !== 'complete') {
        await new Promise<void>((resolve) => pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && resolve()))
      }
      const url = new URL(`${tls ? 'https' : 'http'}://${target.host}:${target.port}${String(target.options.path ?? '/v1/webrtc/offer')}`)
      const headers: Record<string, string> = { 'content-type': 'application/sdp' }
      if (auth) {
        if (!member.credential) throw new Error(`${member.clientId} has no token`)
        headers.authorization = `Bearer ${member.credential}`
      } else {
        url.searchParams.set('room', member.room)
        url.searchParams.set('client', member.clientId)
      }
      const answer = await post(url, tls, headers, pc.localDescription!.sdp)
      if (answer.status !== 201) throw new Error(`offer refused: HTTP ${answer.status} ${answer.body.slice(0, 200)}`)
      await pc.setRemoteDescription({ type: 'answer', sdp: answer.body })
      await ready
      const levelId = Number(Object.entries(pc.extIdUriMap).find(([, uri]) => uri === AUDIO_LEVEL_URI)?.[0] ?? 0)
      const extensions = levelId > 0 ? [{ id: levelId, payload: LEVEL }] : []
      let sequenceNumber = Math.floor(Math.random() * 0x10000)
      let timestamp = Math.floor(Math.random() * 0x1_0000_0000) >>> 0
      return {
        send: (frame) => {
          const header = new RtpHeader({ sequenceNumber, timestamp, payloadType: 96, extensions: [...extensions] })
          sequenceNumber = (sequenceNumber + 1) & 0xffff
          timestamp = (timestamp + 960) >>> 0
          transceiver.sender.sendRtp(new RtpPacket(header, frame)).catch(ignore)
        },
        // RTP over UDP queues nothing on our side.
        backlog: () => 0,
        close: () => void pc.close().catch(ignore),
      }
    } catch (error) {
      await pc.close().catch(ignore)
      throw error
    }
  },
}

export default protocol
