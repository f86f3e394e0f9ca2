import { describe, expect, it } from 'vitest'
import { burnersFromEnv } from './burner.js'

describe('CPU burners', () => {
  it('takes their count from HARK_BENCH_BURNERS, else the caller\'s default, and refuses nonsense', () => {
    expect(burnersFromEnv(2, {})).toBe(2)
    expect(burnersFromEnv(0, { HARK_BENCH_BURNERS: '' })).toBe(0)
    expect(burnersFromEnv(2, { HARK_BENCH_BURNERS: '0' })).toBe(0)
    expect(burnersFromEnv(0, { HARK_BENCH_BURNERS: '3' })).toBe(3)
    expect(() => burnersFromEnv(0, { HARK_BENCH_BURNERS: 'two' })).toThrow(/0 to 8/)
    expect(() => burnersFromEnv(0, { HARK_BENCH_BURNERS: '9' })).toThrow(/0 to 8/)
    expect(() => burnersFromEnv(0, { HARK_BENCH_BURNERS: '1.5' })).toThrow(/0 to 8/)
  })
})
