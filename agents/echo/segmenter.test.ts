import { describe, expect, it } from 'vitest'
import { frames, silence, tone } from '../../core/test/speech.js'
import { UtteranceSegmenter } from './segmenter.js'

const options = { thresholdDbov: 50, silenceMs: 500, prerollMs: 0, minSpeechMs: 100, maxUtteranceMs: 10_000 }

describe('UtteranceSegmenter', () => {
  it('ends an utterance at once when the talker says its turn is over, not after silenceMs', () => {
    const out: Array<{ samples: number; voicedMs: number }> = []
    const seg = new UtteranceSegmenter(options, (pcm, voicedMs) => out.push({ samples: pcm.length, voicedMs }))
    for (const f of frames(tone(300))) seg.push(f)
    for (const f of frames(silence(100))) seg.push(f)
    expect(out).toEqual([])
    seg.finish()
    // 300 ms of speech, trailing silence cut to one frame.
    expect(out).toEqual([{ samples: 320 * 16, voicedMs: 300 }])
    expect(seg.inSpeech).toBe(false)
    // Nothing being collected: nothing happens.
    seg.finish()
    expect(out).toHaveLength(1)
  })

  it('still drops a finished utterance with too little speech', () => {
    const out: number[] = []
    const seg = new UtteranceSegmenter(options, (pcm) => out.push(pcm.length))
    for (const f of frames(tone(60))) seg.push(f)
    seg.finish()
    expect(out).toEqual([])
  })
})
