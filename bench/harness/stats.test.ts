import { describe, expect, it } from 'vitest'
import { alternation, median, medianOf, ratio } from './stats.js'

describe('median', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
  })
  it('ignores missing values and is null when nothing is left', () => {
    expect(median([null, 5, undefined, Number.NaN, 7, 6])).toBe(6)
    expect(median([])).toBeNull()
    expect(median([null])).toBeNull()
  })
  it('takes medians field by field', () => {
    expect(medianOf([{ a: 1, b: 10 }, { a: 3, b: null }, { a: 2 }], ['a', 'b'])).toEqual({ a: 2, b: 10 })
  })
})

describe('alternation', () => {
  it('runs every side once per round, in the same order: A B A B', () => {
    expect(alternation(['hark', 'uws'], 2).map((s) => `${s.side}${s.round}`)).toEqual(['hark1', 'uws1', 'hark2', 'uws2'])
    expect(alternation(['a', 'b', 'c'], 1).map((s) => s.side)).toEqual(['a', 'b', 'c'])
  })
  it('refuses a round count that is not a positive integer', () => {
    expect(() => alternation(['a'], 0)).toThrow()
    expect(() => alternation(['a'], 1.5)).toThrow()
  })
})

describe('ratio', () => {
  it('is Hark over peer when higher is better', () => {
    expect(ratio(50, 100, true)).toBe(0.5)
  })
  it('is inverted when lower is better, so > 1 still means Hark does better', () => {
    expect(ratio(5, 10, false)).toBe(2)
  })
  it('is null when a side is missing or zero', () => {
    expect(ratio(null, 1, true)).toBeNull()
    expect(ratio(1, 0, true)).toBeNull()
  })
})
