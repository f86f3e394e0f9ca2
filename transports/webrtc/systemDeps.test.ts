/**
 * `.ci/system-deps` (run by `npm test` as pretest) decides what to do when Chromium is missing.
 * It runs here as a real bash process with a PATH holding only stand-ins for `id`, `sudo` and
 * `apt-get` that record their calls, and HARK_TEST_CHROMIUM pointing into a temp dir, so the
 * machine's own Chromium is neither seen nor touched.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { repoRoot, tempDir } from '../../core/test/helpers.js'

let dir: ReturnType<typeof tempDir>
let chromium: string
let calls: string
beforeEach(() => {
  dir = tempDir('hark-sysdeps-')
  chromium = join(dir.path, 'chromium')
  calls = join(dir.path, 'calls')
  writeFileSync(calls, '')
})
afterEach(() => dir.remove())

const tool = (name: string, body: string) => {
  const path = join(dir.path, name)
  writeFileSync(path, `#!/bin/sh\n${body}\n`)
  chmodSync(path, 0o755)
}

interface Machine {
  readonly uid: number
  /** none: no sudo; passwordless: `sudo -n true` succeeds; password: it fails (a password is needed). */
  readonly sudo: 'none' | 'passwordless' | 'password'
  readonly aptGet?: 'installs' | 'fails' | 'absent'
}

const run = ({ uid, sudo, aptGet = 'installs' }: Machine) => {
  tool('id', `[ "$1" = "-u" ] && echo ${uid}`)
  if (sudo !== 'none') {
    tool('sudo', [
      `if [ "$1" = "-n" ] && [ "$2" = "true" ]; then exit ${sudo === 'passwordless' ? 0 : 1}; fi`,
      `echo "sudo $*" >> '${calls}'`,
      '[ "$1" = "-n" ] && shift',
      'exec "$@"',
    ].join('\n'))
  }
  if (aptGet !== 'absent') {
    tool('apt-get', [
      `echo "apt-get $*" >> '${calls}'`,
      aptGet === 'fails' ? 'exit 100' : '',
      `[ "$1" = "install" ] && printf '#!/bin/sh\\n' > '${chromium}' && /bin/chmod +x '${chromium}'`,
      'exit 0',
    ].join('\n'))
  }
  const r = spawnSync('/bin/bash', [join(repoRoot, '.ci/system-deps')], {
    env: { PATH: dir.path, HARK_TEST_CHROMIUM: chromium },
    encoding: 'utf8',
  })
  return { code: r.status, stderr: r.stderr, calls: readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean) }
}

const install = 'apt-get install -y -qq --no-install-recommends chromium'
const exactCommand = 'sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium'

describe('.ci/system-deps when Chromium is missing', () => {
  it('does nothing when Chromium is there', () => {
    writeFileSync(chromium, '#!/bin/sh\n')
    chmodSync(chromium, 0o755)
    expect(run({ uid: 1000, sudo: 'password' })).toEqual({ code: 0, stderr: '', calls: [] })
  })

  it('installs it with apt-get as root', () => {
    const r = run({ uid: 0, sudo: 'none' })
    expect(r.calls).toEqual(['apt-get update -qq', install])
    expect(r.code).toBe(0)
    expect(existsSync(chromium)).toBe(true)
  })

  it('installs it through passwordless sudo', () => {
    const r = run({ uid: 1000, sudo: 'passwordless' })
    expect(r.calls).toEqual(['sudo -n apt-get update -qq', 'apt-get update -qq', `sudo -n ${install}`, install])
    expect(r.code).toBe(0)
  })

  it.each([
    ['sudo wants a password', 'password'],
    ['there is no sudo', 'none'],
  ] as const)('stops at once with the exact command when %s', (_what, sudo) => {
    const r = run({ uid: 1000, sudo })
    expect(r.code).toBe(1)
    expect(r.calls).toEqual([])
    expect(r.stderr).toContain(`Chromium is missing (${chromium})`)
    expect(r.stderr.split('\n').map((l) => l.trim())).toContain(exactCommand)
  })

  it('fails when apt-get fails', () => {
    const r = run({ uid: 0, sudo: 'none', aptGet: 'fails' })
    expect(r.code).not.toBe(0)
    expect(r.calls).toEqual(['apt-get update -qq'])
  })

  it('says what to do on a system without apt-get', () => {
    const r = run({ uid: 0, sudo: 'none', aptGet: 'absent' })
    expect(r.code).toBe(1)
    expect(r.calls).toEqual([])
    expect(r.stderr).toContain('HARK_TEST_CHROMIUM=/path/to/chromium')
  })
})
