/**
 * `hark webhook create|list|show|update|delete|rotate-secret|test|deliveries|redeliver`: a
 * workspace's webhook endpoints from the operator's shell, with the same rules as
 * /api/v1/webhooks (core/webhooks/endpoints.ts). A running engine on the same data dir picks
 * the changes up at its next change poll and delivers the test event or the redelivery.
 */
import type { Command } from 'commander'
import { ValidationFailed } from '../../core/errors.js'
import { DELIVERIES_LIMIT_MAX, type WebhookEndpoints, type WebhookPatch } from '../../core/webhooks/endpoints.js'
import { CliError, output, withCommon, withOperator, type CommonOptions, type Operator } from '../context.js'
import { requireWorkspace } from './shared.js'

type WorkspaceOptions = CommonOptions & { workspace: string }

/**
 * The endpoints service of the config's webhooks plugin, built beside (not inside) the engine:
 * its settings (webhooks.allowPrivateNetworks) are the config's, its outbox the data dir's.
 */
const endpointsOf = async (op: Operator, workspaceId: string): Promise<WebhookEndpoints> => {
  requireWorkspace(op, workspaceId)
  if (!op.extensions.some((e) => e.kind === 'plugin' && e.name === 'webhooks')) {
    throw new CliError('the webhooks plugin is not registered in this config')
  }
  // Imported here, not at the top: no other command builds an extension (a metrics registry and
  // all), so `hark client list` and the rest do not load what it takes.
  const { loadOfflineExtension } = await import('../offlineExtensions.js')
  return (await loadOfflineExtension<{ readonly endpoints: WebhookEndpoints }>(op, 'plugin', 'webhooks')).endpoints
}

/** `--events a,b` as a list; `all` for every type. */
const eventsOption = (value: string | undefined): ReadonlyArray<string> | null | undefined =>
  value === undefined ? undefined : value === 'all' ? null : value.split(',').map((s) => s.trim()).filter((s) => s !== '')

const line = (w: { webhookId: string; url: string; enabled: boolean; events: ReadonlyArray<string> | null }) =>
  `${w.webhookId}\t${w.enabled ? 'enabled' : 'disabled'}\t${w.url}\t${w.events?.join(',') ?? 'all'}`

export const webhookCommands = (program: Command) => {
  const group = program.command('webhook').description('webhook endpoints of a workspace (signed event delivery)')
  const ws = (cmd: Command) => withCommon(cmd.requiredOption('--workspace <id>', 'workspace id'))

  ws(
    group
      .command('create')
      .argument('<url>', 'https URL (http only with webhooks.allowPrivateNetworks)')
      .option('--events <types>', 'comma-separated event types (default: every type)')
      .option('--description <text>'),
  )
    .description('create an endpoint; prints its whsec_ signing secret (shown this once)')
    .action(
      withOperator(async (op, url: string, opts: WorkspaceOptions & { events?: string; description?: string }) => {
        const events = eventsOption(opts.events)
        const r = await (await endpointsOf(op, opts.workspace)).create(opts.workspace, { url, events, description: opts.description })
        output(opts, { ...r.webhook, secret: r.secret }, () => `${line(r.webhook)}\n${r.secret}`)
      }),
    )

  ws(group.command('list'))
    .description('list the endpoints')
    .action(
      withOperator(async (op, opts: WorkspaceOptions) => {
        const list = (await endpointsOf(op, opts.workspace)).list(opts.workspace)
        output(opts, list, () => list.map(line).join('\n'))
      }),
    )

  ws(group.command('show').argument('<webhookId>'))
    .description('show one endpoint')
    .action(
      withOperator(async (op, webhookId: string, opts: WorkspaceOptions) => {
        const w = (await endpointsOf(op, opts.workspace)).get(opts.workspace, webhookId)
        output(opts, w, () => line(w))
      }),
    )

  ws(
    group
      .command('update')
      .argument('<webhookId>')
      .option('--url <url>')
      .option('--events <types>', 'comma-separated event types, or all')
      .option('--description <text>', 'an empty string clears it')
      .option('--enable', 'enable (resumes pending deliveries)')
      .option('--disable', 'disable (deliveries wait)'),
  )
    .description('change an endpoint')
    .action(
      withOperator(
        async (
          op,
          webhookId: string,
          opts: WorkspaceOptions & { url?: string; events?: string; description?: string; enable?: boolean; disable?: boolean },
        ) => {
          if (opts.enable && opts.disable) throw new ValidationFailed({ field: 'enable', message: '--enable and --disable exclude each other' })
          const patch: WebhookPatch = {
            url: opts.url,
            events: eventsOption(opts.events),
            description: opts.description === undefined ? undefined : opts.description === '' ? null : opts.description,
            enabled: opts.enable ? true : opts.disable ? false : undefined,
          }
          if (Object.values(patch).every((v) => v === undefined)) {
            throw new ValidationFailed({ field: 'update', message: 'nothing to change: give --url, --events, --description, --enable or --disable' })
          }
          const w = await (await endpointsOf(op, opts.workspace)).update(opts.workspace, webhookId, patch)
          output(opts, w, () => line(w))
        },
      ),
    )

  ws(group.command('delete').argument('<webhookId>'))
    .description('delete an endpoint and its pending deliveries')
    .action(
      withOperator(async (op, webhookId: string, opts: WorkspaceOptions) => {
        const endpoints = await endpointsOf(op, opts.workspace)
        endpoints.delete(opts.workspace, webhookId)
        output(opts, { webhookId, deleted: true }, () => `deleted ${webhookId}`)
      }),
    )

  ws(group.command('rotate-secret').argument('<webhookId>'))
    .description('new signing secret; the old one signs alongside for 24 h')
    .action(
      withOperator(async (op, webhookId: string, opts: WorkspaceOptions) => {
        const r = (await endpointsOf(op, opts.workspace)).rotateSecret(opts.workspace, webhookId)
        output(opts, { ...r.webhook, secret: r.secret }, () => r.secret)
      }),
    )

  ws(group.command('test').argument('<webhookId>'))
    .description('queue a webhook.test event for this endpoint (a running engine sends it)')
    .action(
      withOperator(async (op, webhookId: string, opts: WorkspaceOptions) => {
        const r = (await endpointsOf(op, opts.workspace)).test(opts.workspace, webhookId)
        output(opts, r, () => `${r.deliveryId}\t${r.eventId}`)
      }),
    )

  ws(
    group
      .command('deliveries')
      .argument('<webhookId>')
      .option('--limit <n>', `1-${DELIVERIES_LIMIT_MAX} (default 20)`)
      .option('--cursor <deliveryId>', 'the nextCursor of the previous page'),
  )
    .description('recent deliveries, newest first: status, attempts, last response, next retry')
    .action(
      withOperator(async (op, webhookId: string, opts: WorkspaceOptions & { limit?: string; cursor?: string }) => {
        let limit: number | undefined
        if (opts.limit !== undefined) {
          limit = Number(opts.limit)
          if (!Number.isInteger(limit) || limit < 1 || limit > DELIVERIES_LIMIT_MAX) {
            throw new ValidationFailed({ field: 'limit', message: `--limit must be an integer from 1 to ${DELIVERIES_LIMIT_MAX}` })
          }
        }
        const page = (await endpointsOf(op, opts.workspace)).deliveries(opts.workspace, webhookId, { limit, cursor: opts.cursor })
        output(opts, page, () =>
          page.deliveries
            .map((d) => `${d.deliveryId}\t${d.status}\t${d.type}\t#${d.sequence}\tattempts=${d.attempts}\t${d.responseStatus ?? '-'}\t${d.error ?? ''}`)
            .join('\n'),
        )
      }),
    )

  ws(group.command('redeliver').argument('<webhookId>').argument('<deliveryId>'))
    .description('send a delivered or dead-lettered event again (same webhook-id)')
    .action(
      withOperator(async (op, webhookId: string, deliveryId: string, opts: WorkspaceOptions) => {
        const d = (await endpointsOf(op, opts.workspace)).redeliver(opts.workspace, webhookId, deliveryId)
        output(opts, d, () => `${d.deliveryId}\t${d.status}`)
      }),
    )
}
