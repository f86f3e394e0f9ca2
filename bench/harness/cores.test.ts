import { describe, expect, it } from 'vitest'
import { parseCpuList, planCores } from './cores.js'

describe('core layout', () => {
  it('parses kernel CPU lists', () => {
    expect(parseCpuList('0-1')).toEqual([0, 1])
    expect(parseCpuList('0,2-4,7\n')).toEqual([0, 2, 3, 4, 7])
    expect(() => parseCpuList('3-1')).toThrow()
  })
  it('puts the server on the first core and generators on the rest', () => {
    const l = planCores([0, 1], true)
    expect(l).toMatchObject({ server: 0, generators: [1], pinned: true })
    expect(l.description).toMatch(/server pinned to core 0/)
  })
  it('pins nothing on one core or without taskset, and says why', () => {
    expect(planCores([0], true)).toMatchObject({ pinned: false, server: null })
    expect(planCores([0, 1], false).description).toMatch(/taskset not found/)
  })
})
