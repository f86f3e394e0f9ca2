import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { repoRoot, runCli, tempDir } from '../../core/test/helpers.js'
import { nativeProblem } from './native.js'

const run = promisify(execFile)
const nativeModule = join(repoRoot, 'dist/transports/websocket/native.js')
const probe = `import { nativeProblem } from ${JSON.stringify(nativeModule)}; process.stdout.write(JSON.stringify(nativeProblem()))`

describe('uWebSockets.js loading', () => {
  it('uses the native addon here', () => {
    expect(nativeProblem()).toBeNull()
  })

  it('notices the JavaScript fallback in a process where uWS loaded it', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], {
      env: { ...process.env, UWS_USE_FALLBACK: '1' },
    })
    // The fallback announces itself on stdout before our line; ours is the last JSON value.
    expect(JSON.parse(stdout.slice(stdout.lastIndexOf('"uWebSockets.js')))).toMatch(/JavaScript fallback instead of the native addon/)
  })

  it('makes hark start refuse to run on the fallback', async () => {
    const dir = tempDir()
    try {
      const r = await runCli(['start', '--data', dir.path, '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', '--log-level', 'silent'], {
        UWS_USE_FALLBACK: '1',
      })
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(/transport websocket failed to start: uWebSockets\.js loaded its JavaScript fallback/)
    } finally {
      dir.remove()
    }
  })
})
