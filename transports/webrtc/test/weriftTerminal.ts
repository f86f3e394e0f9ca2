/**
 * A WebRTC terminal for tests: a werift RTCPeerConnection on loopback that gathers, posts its
 * offer to `POST /v1/webrtc/offer` with a client token (over real HTTPS, trusting the engine's
 * certificate), applies the answer, and then speaks terminal protocol v1 — JSON on its data
 * channel, Opus RTP on its audio track (with the RFC 6464 audio-level extension unless told not to).
 */
import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtpHeader,
  RtpPacket,
  useAudioLevelIndication,
  type RTCDataChannel,
  type RTCRtpTransceiver,
} from 'werift'
import type { ServerEvent } from '../../../core/events.js'
import { Inbox, nextEvent } from '../../../core/test/helpers.js'
import { httpsRequest, type HttpsResponse } from '../../../core/test/https.js'

export interface WeriftTerminalOptions {
  /** Post the offer as application/sdp (default) or as JSON {type, sdp}. */
  readonly format?: 'sdp' | 'json'
  /** Negotiate the audio-level header extension (default true). */
  readonly audioLevel?: boolean
  /** Direction of the audio transceiver (default sendrecv). */
  readonly direction?: 'sendrecv' | 'sendonly' | 'recvonly'
}

export interface ReceivedPacket {
  readonly ssrc: number
  readonly sequenceNumber: number
  readonly timestamp: number
  readonly marker: boolean
  readonly payload: Buffer
  readonly levelByte: number | null
}

const AUDIO_LEVEL_URI = 'urn:ietf:params:rtp-hdrext:ssrc-audio-level'

/** A werift peer configured like a browser on loopback, ready to offer (with a video codec when asked). */
export const loopbackPeer = (audioLevel = true, video = false) =>
  new RTCPeerConnection({
    codecs: {
      audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })],
      video: video ? [new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000 })] : [],
    },
    headerExtensions: { audio: audioLevel ? [useAudioLevelIndication()] : [] },
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
    bundlePolicy: 'max-bundle',
  })

/** Offer of a peer, after gathering every candidate (non-trickle). */
export const gatheredOffer = async (pc: RTCPeerConnection): Promise<string> => {
  await pc.setLocalDescription(await pc.createOffer())
  if (pc.iceGatheringState !== 'complete') {
    await new Promise<void>((resolve) => {
      const s = pc.iceGatheringStateChange.subscribe((state) => {
        if (state === 'complete') {
          s.unSubscribe()
          resolve()
        }
      })
    })
  }
  return pc.localDescription!.sdp
}

/** POST an offer the way a client does. */
export const postOffer = (port: number, ca: string, sdp: string, token: string | null, format: 'sdp' | 'json' = 'sdp'): Promise<HttpsResponse> =>
  httpsRequest(port, '/v1/webrtc/offer', ca, {
    method: 'POST',
    headers: {
      'content-type': format === 'sdp' ? 'application/sdp' : 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: format === 'sdp' ? sdp : JSON.stringify({ type: 'offer', sdp }),
  })

export class WeriftTerminal {
  readonly events = new Inbox<ServerEvent>()
  readonly packets = new Inbox<ReceivedPacket>()
  /** Resolves when the connection or the data channel closes (from either side). */
  readonly ended: Promise<string>
  private seq = 1000
  private ts = 5000
  private levelId = 0
  private resolveEnded!: (why: string) => void

  private constructor(
    readonly pc: RTCPeerConnection,
    readonly channel: RTCDataChannel,
    readonly transceiver: RTCRtpTransceiver,
    readonly location: string,
    readonly response: HttpsResponse,
  ) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve))
  }

  get peerId(): string {
    return this.location.slice(this.location.lastIndexOf('/') + 1)
  }

  /** Offer, post, answer; resolves once the answer is applied (wait for `session` with `event`). */
  static async connect(port: number, token: string, ca: string, opts: WeriftTerminalOptions = {}): Promise<WeriftTerminal> {
    const pc = loopbackPeer(opts.audioLevel ?? true)
    const transceiver = pc.addTransceiver('audio', { direction: opts.direction ?? 'sendrecv' })
    const channel = pc.createDataChannel('hark')
    const offer = await gatheredOffer(pc)
    const response = await postOffer(port, ca, offer, token, opts.format ?? 'sdp')
    if (response.status !== 201) {
      await pc.close()
      throw Object.assign(new Error(`offer refused: HTTP ${response.status} ${response.text}`), { response })
    }
    const answer = opts.format === 'json' ? response.json<{ sdp: string }>().sdp : response.text
    const terminal = new WeriftTerminal(pc, channel, transceiver, String(response.headers.location), response)
    terminal.listen()
    await pc.setRemoteDescription({ type: 'answer', sdp: answer })
    terminal.levelId = Number(Object.entries(pc.extIdUriMap).find(([, uri]) => uri === AUDIO_LEVEL_URI)?.[0] ?? 0)
    return terminal
  }

  private listen(): void {
    this.channel.onMessage.subscribe((data) => {
      if (typeof data === 'string') this.events.push(JSON.parse(data) as ServerEvent)
    })
    this.channel.stateChanged.subscribe((state) => {
      if (state === 'closed') this.resolveEnded('data channel closed')
    })
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === 'closed' || state === 'failed') this.resolveEnded(`connection ${state}`)
    })
    this.pc.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp) => {
        const ext = rtp.header.extensions.find((e) => e.id === this.levelId)
        this.packets.push({
          ssrc: rtp.header.ssrc,
          sequenceNumber: rtp.header.sequenceNumber,
          timestamp: rtp.header.timestamp,
          marker: rtp.header.marker,
          payload: Buffer.from(rtp.payload),
          levelByte: ext ? ext.payload[0]! : null,
        })
      }),
    )
  }

  event<T extends ServerEvent['type']>(type: T, predicate?: (e: Extract<ServerEvent, { type: T }>) => boolean, timeoutMs = 10_000) {
    return nextEvent(this.events, type, predicate, { timeoutMs })
  }

  /** A control message on the data channel. */
  send(message: unknown): void {
    this.channel.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  /** One Opus packet as RTP (20 ms), with `levelByte` in the audio-level extension when negotiated. */
  async sendOpus(payload: Uint8Array, levelByte = 0x80 | 20, samples = 960): Promise<void> {
    const header = new RtpHeader({
      sequenceNumber: this.seq,
      timestamp: this.ts,
      payloadType: 96,
      extensions: this.levelId > 0 ? [{ id: this.levelId, payload: Buffer.of(levelByte) }] : [],
    })
    this.seq = (this.seq + 1) & 0xffff
    this.ts = (this.ts + samples) >>> 0
    await this.transceiver.sender.sendRtp(new RtpPacket(header, Buffer.from(payload)))
  }

  /** Leave as a browser does: close the data channel (the server hears the stream reset), then the connection. */
  async close(): Promise<void> {
    if (this.channel.readyState === 'open') {
      const closed = new Promise<void>((resolve) => this.channel.stateChanged.subscribe((s) => s === 'closed' && resolve()))
      this.channel.close()
      await closed
    }
    await this.pc.close()
  }

  /** Vanish without a word: only the connection is closed. */
  async drop(): Promise<void> {
    await this.pc.close()
  }
}
