/**
 * `hark preset create|list|show|update|delete`: a workspace's agent presets ("saved agents") from
 * the operator's side. Providers come from the config's registered extensions (engine.config.ts
 * or --config), and a preset's config is checked against the provider's schema exactly as the
 * REST API checks it.
 */
import type { Command } from 'commander'
import type { AgentProvider } from '../../core/index.js'
import { validateAgentConfig } from '../../core/agentRuntime/agentConfig.js'
import {
  createPreset, deletePreset, getPreset, presetView, updatePreset, type PresetValidator, type PresetView,
} from '../../core/agentRuntime/presets.js'
import { ValidationFailed } from '../../core/errors.js'
import type { RecordingTracksSetting } from '../../core/storage/recordings.js'
import { CliError, output, withCommon, withOperator, type CommonOptions, type Operator } from '../context.js'
import { requireWorkspace } from './shared.js'

type PresetOptions = CommonOptions & { workspace: string; provider?: string; name?: string; agentConfig?: string; record?: string }

/** `--record <tracks>`: the preset's `record` (checked by createPreset/updatePreset); `none` clears it. */
const recordOf = (value: string) => (value === 'none' ? null : { tracks: value as RecordingTracksSetting })

const parseConfig = (text: string | undefined): Record<string, unknown> | undefined => {
  if (text === undefined) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    throw new CliError(`--agent-config is not JSON: ${(e as Error).message}`, 2)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CliError('--agent-config must be a JSON object', 2)
  return value as Record<string, unknown>
}

/**
 * Validate against the providers registered in the config the engine runs with. The provider the
 * preset will name (`provider`) is built first: one defined with `load` is imported only here.
 */
const validatorFor = async (op: Operator, provider: string): Promise<PresetValidator> => {
  const providers = op.extensions.filter((e) => e.kind === 'agentProvider')
  // Imported here: only the preset and webhook commands build an extension offline.
  const { loadOfflineExtension } = await import('../offlineExtensions.js')
  const built = providers.some((e) => e.name === provider) ? await loadOfflineExtension<AgentProvider>(op, 'agentProvider', provider) : null
  return (name, presetConfig) => {
    const ext = providers.find((e) => e.name === name)
    if (!ext) {
      throw new ValidationFailed({
        field: 'provider',
        message: `no agent provider named ${name} (registered: ${providers.map((p) => p.name).join(', ') || 'none'})`,
      })
    }
    if (built === null || name !== provider) throw new Error(`provider ${name} was not built before validating (expected ${provider})`)
    validateAgentConfig(name, built, presetConfig, 'config')
  }
}

const line = (p: PresetView) => `${p.presetId}\t${p.provider}\t${p.name ?? ''}\t${JSON.stringify(p.config)}`

export const presetCommands = (program: Command) => {
  const group = program.command('preset').description('agent presets ("saved agents") of a workspace')
  withCommon(
    group
      .command('create')
      .argument('<presetId>')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--provider <name>', 'agent provider, e.g. echo or openai-realtime')
      .option('--name <name>', 'display name (the agent participant name)')
      .option('--agent-config <json>', 'provider config as a JSON object (no keys or endpoints)')
      .option('--record <tracks>', "record its agents' conversations: mixed, per-participant or both"),
  )
    .description('create a preset; its config is checked against the provider schema')
    .action(
      withOperator(async (op, presetId: string, opts: PresetOptions) => {
        requireWorkspace(op, opts.workspace)
        const validate = await validatorFor(op, opts.provider!)
        const view = createPreset(op.storage, validate, opts.workspace, {
          presetId, provider: opts.provider!, name: opts.name ?? null, config: parseConfig(opts.agentConfig),
          ...(opts.record !== undefined ? { record: recordOf(opts.record) } : {}),
        }, Date.now())
        output(opts, view, () => line(view))
      }),
    )
  withCommon(group.command('list').requiredOption('--workspace <id>', 'workspace id'))
    .description('list presets')
    .action(
      withOperator((op, opts: PresetOptions) => {
        requireWorkspace(op, opts.workspace)
        const list = getAll(op, opts.workspace)
        output(opts, list, () => list.map(line).join('\n'))
      }),
    )
  withCommon(group.command('show').argument('<presetId>').requiredOption('--workspace <id>', 'workspace id'))
    .description('show one preset')
    .action(
      withOperator((op, presetId: string, opts: PresetOptions) => {
        requireWorkspace(op, opts.workspace)
        const view = getPreset(op.storage, opts.workspace, presetId)
        output(opts, view, () => line(view))
      }),
    )
  withCommon(
    group
      .command('update')
      .argument('<presetId>')
      .requiredOption('--workspace <id>', 'workspace id')
      .option('--provider <name>', 'agent provider')
      .option('--name <name>', 'display name')
      .option('--agent-config <json>', 'replace the config (a JSON object)')
      .option('--record <tracks>', "record its agents' conversations: mixed, per-participant, both, or none"),
  )
    .description('change a preset; agents already running keep the config they started with')
    .action(
      withOperator(async (op, presetId: string, opts: PresetOptions) => {
        requireWorkspace(op, opts.workspace)
        const validate = await validatorFor(op, opts.provider ?? getPreset(op.storage, opts.workspace, presetId).provider)
        const view = updatePreset(op.storage, validate, opts.workspace, presetId, {
          ...(opts.provider !== undefined ? { provider: opts.provider } : {}),
          ...(opts.name !== undefined ? { name: opts.name } : {}),
          ...(opts.agentConfig !== undefined ? { config: parseConfig(opts.agentConfig) } : {}),
          ...(opts.record !== undefined ? { record: recordOf(opts.record) } : {}),
        }, Date.now())
        output(opts, view, () => line(view))
      }),
    )
  withCommon(group.command('delete').argument('<presetId>').requiredOption('--workspace <id>', 'workspace id'))
    .description('delete a preset; running agents are not affected')
    .action(
      withOperator((op, presetId: string, opts: PresetOptions) => {
        requireWorkspace(op, opts.workspace)
        const result = deletePreset(op.storage, opts.workspace, presetId)
        output(opts, result, () => `deleted ${presetId}`)
      }),
    )
}

const getAll = (op: Operator, workspaceId: string): PresetView[] => {
  const out: PresetView[] = []
  let after: string | undefined
  for (;;) {
    const page = op.storage.agentPresets.list(workspaceId, { after, limit: 500 })
    out.push(...page.map(presetView))
    if (page.length < 500) return out
    after = page[page.length - 1]!.presetId
  }
}
