/** The webhooks plugin's settings (spec/webhooks.md, URL rules). */
import * as Schema from 'effect/Schema'
import { defineSettings, setting } from '../../core/extension.js'

export const webhooksSettings = defineSettings('webhooks', {
  allowPrivateNetworks: setting(
    Schema.Boolean,
    false,
    'allow webhook URLs over plain http and hosts that resolve to loopback, private, link-local, multicast or other non-global addresses (checked at create time and on every delivery connection); for local receivers and tests',
  ),
})

export type WebhooksSettings = typeof webhooksSettings.Type
