import { describe, expect, it } from 'vitest'
import { saturation } from './saturation.js'

const base = { serverCpuPercent: 40, serverCores: 1, generatorCpuPercent: 30, generatorCores: 1, sendShortfall: 0 }

describe('saturation', () => {
  it('is neither when both sides have room', () => {
    expect(saturation(base)).toEqual({ side: 'neither', reasons: [] })
  })
  it('blames the server at ≥ 90% of its core', () => {
    expect(saturation({ ...base, serverCpuPercent: 95 }).side).toBe('server')
  })
  it('blames the generator for its CPU or for sending less than scheduled', () => {
    expect(saturation({ ...base, generatorCpuPercent: 92 }).side).toBe('generator')
    const short = saturation({ ...base, sendShortfall: 0.1 })
    expect(short.side).toBe('generator')
    expect(short.reasons[0]).toMatch(/90\.0% of the scheduled/)
  })
  it('counts a core filled by other processes, and says whose share was what', () => {
    const starved = saturation({ ...base, serverCpuPercent: 60, serverCoreBusyPercent: 97 })
    expect(starved.side).toBe('server')
    expect(starved.reasons[0]).toBe("server core 97% busy, the server's own share 60%")
    expect(saturation({ ...base, generatorCoresBusyPercent: 95 }).side).toBe('generator')
    expect(saturation({ ...base, generatorCores: 0, generatorCoresBusyPercent: 95 }).side).toBe('neither')
  })
  it('scales the generator limit with its cores, and says both when both are full', () => {
    expect(saturation({ ...base, generatorCpuPercent: 150, generatorCores: 2 }).side).toBe('neither')
    expect(saturation({ ...base, serverCpuPercent: 99, generatorCpuPercent: 99 }).side).toBe('both')
  })
})
