/** Checks shared by operator commands. */
import { WorkspaceNotFound } from '../../core/errors.js'
import type { Operator } from '../context.js'

export const requireWorkspace = (op: Operator, workspaceId: string) => {
  if (!op.storage.workspaces.get(workspaceId)) {
    throw new WorkspaceNotFound({ message: `no workspace ${workspaceId}` })
  }
}
