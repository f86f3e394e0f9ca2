// A page that talks in a Hark room through @hark/client: join with a gateway URL and a client
// token, hear the room, mute, pick a microphone, see who is there and who is speaking, leave.
// Run it with Vite from the repository root: `npx vite examples/web-room` (README.md).
import { connect, isAgentEvent, listAudioDevices } from '@hark/client'

const $ = (id) => document.getElementById(id)
const form = $('join')
const params = new URLSearchParams(location.search)
for (const name of ['url', 'token', 'transport']) if (params.has(name)) form.elements[name].value = params.get(name)

let session = null
let meter = 0

const say = (text) => ($('status').textContent = text)
const problem = (text) => ($('problem').textContent = text)
const log = (text) => {
  const item = document.createElement('li')
  item.textContent = text
  $('log').prepend(item)
}

const drawPeople = () => {
  const list = $('people')
  list.replaceChildren()
  for (const p of session.participants.values()) {
    const item = document.createElement('li')
    item.textContent = `${p.name ?? p.id} (${p.kind})`
    item.dataset.participant = p.id
    item.dataset.speaking = String(session.speaking.has(p.id))
    list.append(item)
  }
  if (session.participants.size === 0) list.innerHTML = '<li>Nobody else yet.</li>'
}

const drawMicrophones = async () => {
  const { inputs } = await listAudioDevices()
  $('microphone').replaceChildren(...inputs.map((d, i) => new Option(d.label || `Microphone ${i + 1}`, d.deviceId)))
}

const joined = () => {
  form.hidden = true
  $('room').hidden = false
  say(`In room ${session.room ?? '(none)'} as ${session.clientId}, over ${session.transport}.`)
  drawPeople()
  void drawMicrophones()
  const tick = () => {
    if (!session || session.state === 'closed') return
    $('level').value = session.inputLevel()
    meter = requestAnimationFrame(tick)
  }
  tick()
}

const left = (text) => {
  cancelAnimationFrame(meter)
  session = null
  form.hidden = false
  $('room').hidden = true
  say(text)
}

form.addEventListener('submit', async (e) => {
  e.preventDefault()
  problem('')
  say('Connecting…')
  try {
    session = await connect({ url: form.elements.url.value, token: form.elements.token.value.trim(), transport: form.elements.transport.value })
  } catch (error) {
    say('')
    problem(`Could not join: ${error.message} (${error.name}).`)
    return
  }
  session.on('event', (event) => {
    if (event.type === 'agent.event' && isAgentEvent(event.event, 'transcript')) log(`${event.event.role}: ${event.event.text}`)
    else log(event.type)
    if (session) drawPeople()
  })
  session.on('room.changed', () => say(`Moved to room ${session.room ?? '(none)'}.`))
  session.on('reconnecting', ({ attempt, delayMs, error }) => say(`Connection lost (${error.message}); trying again in ${Math.round(delayMs / 100) / 10} s (attempt ${attempt}).`))
  session.on('reconnected', () => joined())
  session.on('closed', (error) => {
    if (error) problem(`The session ended: ${error.message} (${error.name}).`)
    left(error ? '' : 'You left the room.')
  })
  joined()
})

$('mute').addEventListener('click', () => {
  if (!session) return
  if (session.muted) session.unmute()
  else session.mute()
  $('mute').setAttribute('aria-pressed', String(session.muted))
  $('mute').textContent = session.muted ? 'Unmute' : 'Mute'
})

$('microphone').addEventListener('change', (e) => void session?.setInputDevice(e.target.value).catch((error) => problem(error.message)))

$('leave').addEventListener('click', () => void session?.close())
