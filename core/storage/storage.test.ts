import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../test/helpers.js'
import { openStorage } from './storage.js'

describe('storage', () => {
  it('flushes a batch queued when it closes, and its turn’s scheduled flush then touches nothing', async () => {
    const dir = tempDir()
    try {
      const storage = openStorage(join(dir.path, 'hark.db'))
      const written = storage.batch(() => storage.workspaces.insert({ workspaceId: 'ws_1', name: 'acme', createdAt: 1 }))
      storage.close()
      await written
      // The flush scheduled for this turn runs now: on a closed libSQL handle it would abort the process.
      await new Promise<void>((resolve) => setImmediate(resolve))
      const again = openStorage(join(dir.path, 'hark.db'))
      expect(again.workspaces.get('ws_1')?.name).toBe('acme')
      again.close()
    } finally {
      dir.remove()
    }
  })
})
