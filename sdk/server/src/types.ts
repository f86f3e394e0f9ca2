/**
 * Names for the shapes of the REST API, all read off the generated OpenAPI types, so they follow
 * spec/openapi.json exactly.
 */
import type { components, operations } from './generated/openapi.js'

type Schemas = components['schemas']
type Ok<O extends keyof operations> = operations[O]['responses'] extends infer R
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: { 'application/json': infer J } } ? J : never) : never }[keyof R]
  : never
type Body<O extends keyof operations> = operations[O] extends { requestBody?: { content: { 'application/json': infer J } } } ? J : never
type Query<O extends keyof operations> = NonNullable<operations[O]['parameters']['query']>

export type Client = Schemas['Client']
export type Connection = Schemas['Connection']
export type Agent = Schemas['Agent']
export type AgentPreset = Schemas['AgentPreset']
export type DefaultAgent = Schemas['DefaultAgent']
export type Participant = Schemas['Participant']
export type Room = Schemas['Room']
export type ErrorEnvelope = Schemas['Error']

export type ClientList = Ok<'listClients'>
export type ClientListQuery = Query<'listClients'>
export type CreateClient = Body<'createClient'>
export type UpdateClient = Body<'updateClient'>
export type DeletedClient = Ok<'deleteClient'>
export type IssueToken = Body<'issueClientToken'>
export type IssuedToken = Ok<'issueClientToken'>
export type CreateEphemeralClient = Body<'createEphemeralClient'>
export type EphemeralClient = Ok<'createEphemeralClient'>
export type RevokedToken = Ok<'revokeToken'>
export type RevokedAllTokens = Ok<'revokeAllClientTokens'>
export type UsageQuery = Query<'getUsage'>
export type Usage = Ok<'getUsage'>
export type DispatchAgent = Body<'dispatchAgent'>
export type AgentListQuery = Query<'listAgents'>
export type AgentList = Ok<'listAgents'>
export type StoppedAgent = Ok<'stopAgent'>
export type AgentProviders = Ok<'listAgentProviders'>
export type Transcript = Schemas['Transcript']
export type TranscriptTurn = Schemas['TranscriptTurn']
export type AgentTranscript = Ok<'getAgentTranscript'>
export type AgentTranscriptQuery = Query<'getAgentTranscript'>
export type DeletedTranscript = Ok<'deleteAgentTranscript'>
export type TranscriptList = Ok<'listTranscripts'>
export type TranscriptListQuery = Query<'listTranscripts'>
export type AgentPresetList = Ok<'listAgentPresets'>
export type AgentPresetListQuery = Query<'listAgentPresets'>
export type CreateAgentPreset = Body<'createAgentPreset'>
export type UpdateAgentPreset = Body<'updateAgentPreset'>
export type DeletedAgentPreset = Ok<'deleteAgentPreset'>
export type RoomList = Ok<'listRooms'>
export type RoomListQuery = Query<'listRooms'>
export type PutRoom = Body<'putRoom'>
export type Webhook = Ok<'getWebhook'>
export type CreatedWebhook = Ok<'createWebhook'>
export type CreateWebhook = Body<'createWebhook'>
export type UpdateWebhook = Body<'updateWebhook'>
export type WebhookList = Ok<'listWebhooks'>
export type DeletedWebhook = Ok<'deleteWebhook'>
export type RotatedWebhook = Ok<'rotateWebhookSecret'>
export type WebhookTest = Ok<'testWebhook'>
export type WebhookDelivery = WebhookDeliveryList['deliveries'][number]
export type WebhookDeliveryList = Ok<'listWebhookDeliveries'>
export type WebhookDeliveryListQuery = Query<'listWebhookDeliveries'>
export type Redelivery = Ok<'redeliverWebhookDelivery'>
