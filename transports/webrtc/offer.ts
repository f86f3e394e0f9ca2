/**
 * What Hark accepts as a WebRTC offer, and the last touch on its answer. An offer must carry
 * exactly one audio section offering Opus (opus/48000/2) over DTLS-SRTP, and a data channel
 * (events and control messages travel there), BUNDLEd together so one UDP port carries both;
 * video is refused. Every refusal is a ValidationFailed naming what is wrong (spec/webrtc.md).
 */
import type { SessionDescription } from 'werift'
import { ValidationFailed } from '../../core/extension.js'
import { loadWerift } from './werift.js'

const refuse = (message: string) => new ValidationFailed({ field: 'sdp', message })

/** Check an SDP offer; rejects with ValidationFailed (werift's parser is loaded by the first offer). */
export const checkOffer = async (sdp: string): Promise<void> => {
  if (!sdp.startsWith('v=0')) throw refuse('not an SDP offer (it must start with "v=0")')
  const { SessionDescription } = await loadWerift()
  let description: SessionDescription
  try {
    description = SessionDescription.parse(sdp)
  } catch (e) {
    throw refuse(`not a valid SDP offer: ${(e as Error).message}`)
  }
  const media = description.media
  if (media.length === 0) throw refuse('the offer has no media section')
  if (media.some((m) => m.kind === 'video')) throw refuse('video is not supported: Hark carries audio only')
  const audio = media.filter((m) => m.kind === 'audio')
  if (audio.length !== 1) throw refuse(`the offer has ${audio.length} audio sections; Hark takes exactly one`)
  const data = media.filter((m) => m.kind === 'application')
  if (data.length === 0) throw refuse('the offer has no data channel: create one (label "hark") before createOffer()')
  const section = audio[0]!
  if (!section.rtp.codecs.some((c) => c.mimeType.toLowerCase() === 'audio/opus' && c.clockRate === 48000)) {
    throw refuse('the audio section does not offer Opus (opus/48000/2)')
  }
  for (const m of [section, data[0]!]) {
    if (!m.profile.includes('TLS') || !m.dtlsParams || m.dtlsParams.fingerprints.length === 0) {
      throw refuse('DTLS-SRTP is required: UDP/TLS/RTP/SAVPF and a=fingerprint')
    }
    if (!m.iceParams?.usernameFragment || !m.iceParams.password) throw refuse('the offer has no ICE credentials (a=ice-ufrag, a=ice-pwd)')
  }
  const mids = [section.rtp.muxId, data[0]!.rtp.muxId]
  const bundled = description.group.some((g) => g.semantic === 'BUNDLE' && mids.every((mid) => mid !== undefined && g.items.includes(mid)))
  if (!bundled) throw refuse('audio and the data channel must be in one a=group:BUNDLE')
}

/**
 * The answer as sent: host candidates' addresses replaced by `announced` (1:1 NAT) when set.
 * Returns the SDP and how many candidates it offers.
 */
export const finishAnswer = (sdp: string, announced: string | null): { sdp: string; candidates: number } => {
  let candidates = 0
  const lines = sdp.split('\r\n').map((line) => {
    if (!line.startsWith('a=candidate:')) return line
    candidates++
    const fields = line.split(' ')
    if (announced === null || fields[7] !== 'host') return line
    fields[4] = announced
    return fields.join(' ')
  })
  return { sdp: lines.join('\r\n'), candidates }
}
