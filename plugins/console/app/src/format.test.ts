import { describe, expect, it } from 'vitest'
import { compactTime, entriesOf, exampleOf, labelFromKey, labelOf, sentence } from './format'

describe('console words', () => {
  it('labels a settings key as a person reads it, units in parentheses', () => {
    expect(
      ['silenceMs', 'thresholdDbov', 'prerollMs', 'maxUtteranceMs', 'vadThreshold', 'ttsFormat', 'inputTranscriptionModel', 'voice', 'llmModel', 'maxHistoryTurns', 'baseURL', 'api_key', 'ms'].map(labelFromKey),
    ).toEqual([
      'Silence (ms)', 'Threshold (dBov)', 'Preroll (ms)', 'Max utterance (ms)', 'VAD threshold', 'TTS format', 'Input transcription model', 'Voice', 'LLM model',
      'Max history turns', 'Base URL', 'API key', 'Ms',
    ])
    expect(labelOf('silenceMs', { title: 'Silence before the end of a turn' })).toBe('Silence before the end of a turn')
    expect(labelOf('silenceMs', {})).toBe('Silence (ms)')
  })

  it('makes a sentence of a description phrase', () => {
    expect(sentence('silence that ends an utterance, ms')).toBe('Silence that ends an utterance, ms.')
    expect(sentence('Already one.')).toBe('Already one.')
  })

  it('gives an example of a provider’s settings from its schema: a default first', () => {
    const echo = { type: 'object', properties: { silenceMs: { type: 'integer', minimum: 100, default: 500 }, thresholdDbov: { type: 'integer', default: 50 } } }
    expect(exampleOf(echo)).toBe('{"silenceMs": 500}')
    const realtime = { properties: { vadSilenceMs: { type: 'integer', minimum: 100 }, voice: { type: 'string', default: 'alloy' } } }
    expect(exampleOf(realtime)).toBe('{"voice": "alloy"}')
    expect(exampleOf({ properties: { speed: { type: 'number', minimum: 0.5 } } })).toBe('{"speed": 0.5}')
    expect(exampleOf({ properties: { format: { enum: ['pcm', 'wav'] } } })).toBe('{"format": "pcm"}')
    expect(exampleOf({ properties: {} })).toBeNull()
    expect(exampleOf({ type: 'object' })).toBeNull()
  })

  it('lists an object as key and text pairs', () => {
    expect(entriesOf({ role: 'viewer', generated: true, n: 3, nested: { a: [1] } })).toEqual([
      ['role', 'viewer'], ['generated', 'true'], ['n', '3'], ['nested', '{"a":[1]}'],
    ])
    expect(entriesOf(null)).toEqual([])
  })

  it('writes a time short for a cell and in full for its title', () => {
    const now = new Date('2026-12-02T15:00:00Z')
    const thisYear = compactTime('2026-12-02T14:12:33Z', now, 'en-US', 'UTC')
    expect(thisYear.short).toMatch(/^Dec 2, 2:12\sPM$/)
    expect(thisYear.full).toMatch(/^Wednesday, December 2, 2026 at 2:12:33\sPM UTC$/)
    expect(compactTime('2025-03-04T10:00:00Z', now, 'en-US', 'UTC').short).toBe('Mar 4, 2025')
  })
})
