/**
 * Streamed text to whole sentences, so speech can start with the first sentence while the chat
 * model is still writing the rest. Sentence boundaries come from Intl.Segmenter (ICU's rules:
 * "3.5" does not end a sentence, "Dr. Smith" does); a segment is released once text follows it
 * or it ends with a sentence's punctuation and a space, and the last one at the end of the stream.
 */
const TERMINATED = /[.!?…。！？]['"”’)\]]*\s+$/u

export class SentenceSplitter {
  private text = ''
  private readonly segmenter: Intl.Segmenter

  constructor(locale = 'en') {
    this.segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' })
  }

  /** Add streamed text; returns the sentences it completed. */
  push(delta: string): string[] {
    this.text += delta
    const segments = [...this.segmenter.segment(this.text)]
    // The last segment is complete too when it ends with a sentence's punctuation and a space.
    const keep = TERMINATED.test(this.text) ? 0 : 1
    if (segments.length - keep < 1) return []
    const done = segments.slice(0, segments.length - keep)
    this.text = keep ? this.text.slice(segments[segments.length - 1]!.index) : ''
    return done.map((s) => s.segment.trim()).filter((s) => s.length > 0)
  }

  /** The end of the stream: whatever is left is the last sentence. */
  end(): string[] {
    const rest = this.text.trim()
    this.text = ''
    return rest ? [rest] : []
  }
}
