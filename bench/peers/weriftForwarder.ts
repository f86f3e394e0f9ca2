/**
 * Peer: a bare werift forwarder, the floor for Hark's WebRTC transport. The same werift version
 * and peer configuration as Hark (Opus with the audio-level extension, loopback host candidate,
 * BUNDLE, DTLS-SRTP, a data channel), signalling over plain HTTP (`POST /offer?room=R&client=C`,
 * non-trickle, no authentication), and every RTP payload a peer sends re-sent to the other peers
 * of its room on their one outbound track (sequence +1, timestamp +960 per packet). No rooms
 * logic beyond a set per room, no token, no events beyond a "session" message on the channel
 * to say the peer is in: a ceiling for what werift in one Node process can forward.
 * Usage: node dist/bench/peers/weriftForwarder.js --port N (IPC: ready).
 */
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'
import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtpHeader,
  RtpPacket,
  useAudioLevelIndication,
  type RTCRtpSender,
} from 'werift'
import { serveWorker } from '../harness/worker.js'

const { values } = parseArgs({ options: { port: { type: 'string' } } })
const port = Number(values.port)
if (!port) throw new Error('--port is required')

const LEVEL = Buffer.of(0x80 | 20)
const ignore = () => {}

interface Peer {
  readonly pc: RTCPeerConnection
  readonly sender: RTCRtpSender
  readonly levelId: number
  sequenceNumber: number
  timestamp: number
}

const rooms = new Map<string, Set<Peer>>()

const forward = (to: Peer, payload: Buffer) => {
  const header = new RtpHeader({
    sequenceNumber: to.sequenceNumber,
    timestamp: to.timestamp,
    extensions: to.levelId > 0 ? [{ id: to.levelId, payload: LEVEL }] : [],
  })
  to.sequenceNumber = (to.sequenceNumber + 1) & 0xffff
  to.timestamp = (to.timestamp + 960) >>> 0
  to.sender.sendRtp(new RtpPacket(header, payload)).catch(ignore)
}

const answer = async (room: string, offer: string): Promise<string> => {
  const pc = new RTCPeerConnection({
    codecs: { audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })] },
    headerExtensions: { audio: [useAudioLevelIndication()] },
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
    iceInterfaceAddresses: { udp4: '127.0.0.1' },
    bundlePolicy: 'max-bundle',
  })
  let members = rooms.get(room)
  if (!members) rooms.set(room, (members = new Set()))
  const others = members
  let peer: Peer | null = null
  // Subscribed before the offer is applied: applying it announces the track.
  pc.onTrack.subscribe((track) =>
    track.onReceiveRtp.subscribe((rtp) => {
      for (const other of others) if (other !== peer) forward(other, rtp.payload)
    }),
  )
  await pc.setRemoteDescription({ type: 'offer', sdp: offer })
  const transceiver = pc.getTransceivers().find((t) => t.kind === 'audio')!
  transceiver.setDirection('sendrecv')
  const levelId = Number(Object.entries(pc.extIdUriMap).find(([, uri]) => uri === 'urn:ietf:params:rtp-hdrext:ssrc-audio-level')?.[0] ?? 0)
  const self: Peer = (peer = { pc, sender: transceiver.sender, levelId, sequenceNumber: 0, timestamp: 0 })
  pc.onDataChannel.subscribe((channel) =>
    channel.stateChanged.subscribe((state) => {
      if (state === 'open') {
        others.add(self)
        channel.send(JSON.stringify({ type: 'session', room }))
      } else if (state === 'closed') {
        others.delete(self)
        void pc.close().catch(ignore)
      }
    }),
  )
  await pc.setLocalDescription(await pc.createAnswer())
  if (pc.iceGatheringState !== 'complete') {
    await new Promise<void>((resolve) => pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && resolve()))
  }
  return pc.localDescription!.sdp
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  const room = url.searchParams.get('room')
  if (req.method !== 'POST' || url.pathname !== '/offer' || !room) {
    res.writeHead(404).end()
    return
  }
  const chunks: Buffer[] = []
  req.on('data', (d: Buffer) => chunks.push(d))
  req.on('end', () => {
    answer(room, Buffer.concat(chunks).toString('utf8')).then(
      (sdp) => res.writeHead(201, { 'content-type': 'application/sdp' }).end(sdp),
      (e: unknown) => res.writeHead(400).end(String(e)),
    )
  })
})

const send = serveWorker({
  deadlineMs: 60 * 60_000,
  onMessage: () => {},
  onStop: () => {
    server.close()
    for (const members of rooms.values()) for (const peer of members) void peer.pc.close().catch(ignore)
  },
})

server.listen(port, '127.0.0.1', () => send({ type: 'ready', port }))
