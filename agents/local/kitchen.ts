/**
 * The example preset of the README: a kitchen assistant with three intents, each a tool of a
 * xiaozhi device in the room (the tools the device emulator of transports/xiaozhi/test serves).
 * Also what the tests and the `local-agent` bench scenario dispatch.
 */
export const kitchenAssistant = {
  brain: 'commands',
  voice: 'slt',
  intents: [
    {
      name: 'light',
      phrases: ['turn {state} the {room} light', 'turn the {room} light {state}', 'switch {state} the {room} light'],
      slots: { state: { on: true, off: false }, room: ['kitchen', 'living room', 'bedroom'] },
      tool: { name: 'self.light.set_on', arguments: { room: '{room}', on: '{state}' } },
      reply: 'The {room} light is {state}.',
    },
    {
      name: 'timer',
      phrases: ['set a timer for {minutes} minutes', 'start a {minutes} minute timer'],
      slots: { minutes: { two: 2, three: 3, five: 5, ten: 10, fifteen: 15, twenty: 20 } },
      tool: { name: 'self.timer.start', arguments: { minutes: '{minutes}' } },
      reply: 'Timer set for {minutes} minutes.',
    },
    {
      name: 'temperature',
      phrases: ['what is the temperature [in the kitchen]', "what's the temperature [in the kitchen]", 'how (warm | cold) is it'],
      tool: { name: 'self.thermometer.read' },
      reply: 'It is {result} degrees in the kitchen.',
    },
  ],
} as const

/** What each intent's phrase sounds like, with the reply the emulator's tools lead to. */
export const kitchenPhrases: ReadonlyArray<{ readonly say: string; readonly intent: string; readonly reply: string }> = [
  { say: 'turn on the kitchen light', intent: 'light', reply: 'the kitchen light is on' },
  { say: 'turn off the bedroom light', intent: 'light', reply: 'the bedroom light is off' },
  { say: 'switch on the living room light', intent: 'light', reply: 'the living room light is on' },
  { say: 'set a timer for five minutes', intent: 'timer', reply: 'timer set for five minutes' },
  { say: 'start a ten minute timer', intent: 'timer', reply: 'timer set for ten minutes' },
  { say: 'what is the temperature in the kitchen', intent: 'temperature', reply: 'it is twenty one degrees in the kitchen' },
  { say: 'how cold is it', intent: 'temperature', reply: 'it is twenty one degrees in the kitchen' },
]
