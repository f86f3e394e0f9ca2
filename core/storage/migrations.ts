/**
 * Versioned schema migrations, applied in order at start inside one transaction each. A
 * migration is never edited once released: a change is a new entry with the next version.
 * Each is applied once, whoever starts first: on a libSQL server the transaction runs on the
 * primary, and a version another node applied meanwhile is skipped inside it.
 */
import type { Db } from './db.js'

export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: string
}

export const migrations: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE workspaces (
        workspace_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE api_keys (
        key_id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        name TEXT,
        key_hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX api_keys_by_workspace ON api_keys(workspace_id);
      CREATE TABLE signing_secrets (
        kid TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        secret_enc TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        retires_at INTEGER
      );
      CREATE INDEX signing_secrets_by_workspace ON signing_secrets(workspace_id);
      CREATE TABLE clients (
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        client_id TEXT NOT NULL,
        name TEXT,
        kind TEXT,
        room TEXT,
        ephemeral INTEGER NOT NULL DEFAULT 0,
        expires_at INTEGER,
        tokens_not_before INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, client_id)
      );
      CREATE INDEX clients_by_room ON clients(workspace_id, room);
      CREATE INDEX clients_by_expiry ON clients(expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE device_passwords (
        workspace_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        password_enc TEXT NOT NULL,
        lookup_hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, client_id),
        FOREIGN KEY (workspace_id, client_id) REFERENCES clients(workspace_id, client_id) ON DELETE CASCADE
      );
      CREATE TABLE issued_tokens (
        jti TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        client_id TEXT NOT NULL,
        issued_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX issued_tokens_by_client ON issued_tokens(workspace_id, client_id);
      CREATE INDEX issued_tokens_revoked ON issued_tokens(revoked_at) WHERE revoked_at IS NOT NULL;
      CREATE TABLE usage_daily (
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        day TEXT NOT NULL,
        milliseconds INTEGER NOT NULL DEFAULT 0,
        sessions INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace_id, day)
      );
      CREATE TABLE agent_presets (
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        preset_id TEXT NOT NULL,
        name TEXT,
        provider TEXT NOT NULL,
        config TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, preset_id)
      );
      CREATE TABLE changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        origin TEXT NOT NULL,
        workspace_id TEXT,
        kind TEXT NOT NULL,
        subject TEXT,
        at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'usage sessions',
    sql: `
      CREATE TABLE usage_sessions (
        session_id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        client_id TEXT NOT NULL,
        transport TEXT NOT NULL,
        node TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        checkpoint_at INTEGER NOT NULL,
        ended_at INTEGER
      );
      CREATE INDEX usage_sessions_open ON usage_sessions(node) WHERE ended_at IS NULL;
      CREATE INDEX usage_sessions_by_workspace ON usage_sessions(workspace_id) WHERE ended_at IS NULL;
    `,
  },
  {
    version: 4,
    name: 'room settings',
    sql: `
      CREATE TABLE room_settings (
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        room TEXT NOT NULL,
        default_agent TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, room)
      );
    `,
  },
  {
    version: 5,
    name: 'webhooks',
    sql: `
      CREATE TABLE webhook_endpoints (
        webhook_id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        events TEXT,
        description TEXT,
        secret_enc TEXT NOT NULL,
        previous_secret_enc TEXT,
        previous_secret_expires_at INTEGER,
        enabled INTEGER NOT NULL DEFAULT 1,
        disabled_reason TEXT,
        failing_since INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX webhook_endpoints_by_workspace ON webhook_endpoints(workspace_id);
      CREATE TABLE webhook_sequences (
        workspace_id TEXT NOT NULL,
        resource TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, resource)
      ) WITHOUT ROWID;
      CREATE TABLE webhook_events (
        event_id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL,
        type TEXT NOT NULL,
        resource TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id TEXT NOT NULL UNIQUE,
        webhook_id TEXT NOT NULL REFERENCES webhook_endpoints(webhook_id) ON DELETE CASCADE,
        event_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        resource TEXT NOT NULL,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        last_attempt_at INTEGER,
        last_status INTEGER,
        last_error TEXT,
        last_latency_ms INTEGER,
        created_at INTEGER NOT NULL,
        completed_at INTEGER
      );
      CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, resource, seq) WHERE state = 'pending';
      CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, id);
      CREATE INDEX webhook_deliveries_completed ON webhook_deliveries(completed_at) WHERE completed_at IS NOT NULL;
    `,
  },
  {
    version: 6,
    name: 'device enrollment',
    sql: `
      CREATE TABLE device_enrollments (
        device_id TEXT NOT NULL,
        instance_id TEXT NOT NULL,
        code TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        info TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (device_id, instance_id)
      );
      CREATE INDEX device_enrollments_by_expiry ON device_enrollments(expires_at);
      CREATE TABLE device_bindings (
        device_id TEXT PRIMARY KEY,
        instance_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        client_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        info TEXT,
        bound_at INTEGER NOT NULL,
        FOREIGN KEY (workspace_id, client_id) REFERENCES clients(workspace_id, client_id) ON DELETE CASCADE
      );
      CREATE UNIQUE INDEX device_bindings_by_client ON device_bindings(workspace_id, client_id);
    `,
  },
  {
    version: 7,
    name: 'people: users, console sessions, memberships, invitations, audit log',
    sql: `
      ALTER TABLE workspaces ADD COLUMN deleted_at INTEGER;
      CREATE TABLE users (
        user_id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        email_key TEXT NOT NULL UNIQUE,
        name TEXT,
        password_hash TEXT NOT NULL,
        disabled_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE user_sessions (
        session_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
        csrf_token TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        ip TEXT,
        user_agent TEXT
      );
      CREATE INDEX user_sessions_by_user ON user_sessions(user_id);
      CREATE TABLE memberships (
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('admin', 'developer', 'viewer')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, user_id)
      );
      CREATE INDEX memberships_by_user ON memberships(user_id);
      CREATE TABLE invitations (
        invitation_id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        email TEXT NOT NULL,
        email_key TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('admin', 'developer', 'viewer')),
        token_hash TEXT NOT NULL UNIQUE,
        invited_by TEXT REFERENCES users(user_id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        accepted_at INTEGER,
        accepted_by TEXT REFERENCES users(user_id) ON DELETE SET NULL,
        revoked_at INTEGER
      );
      CREATE INDEX invitations_by_workspace ON invitations(workspace_id, created_at);
      CREATE TABLE audit_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        workspace_id TEXT,
        at INTEGER NOT NULL,
        actor_user_id TEXT,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT,
        subject_user_id TEXT,
        ip TEXT,
        detail TEXT
      );
      CREATE INDEX audit_events_by_workspace ON audit_events(workspace_id, id);
      CREATE INDEX audit_events_by_subject ON audit_events(subject_user_id, id) WHERE subject_user_id IS NOT NULL;
    `,
  },
  {
    // Every delivery paid for these on the hot path: the pending index at its insert (at a random
    // place: by resource) and again at its outcome, the completed one at its outcome. What reads
    // deliveries needs neither: the worker reads pending rows past its cursor by id (the rowid),
    // an endpoint's pending rows (a gained cluster lease) and its history through
    // webhook_deliveries_by_webhook (webhook_id, id), one delivery by its unique delivery_id, and
    // the hourly prune goes by id up to the first row created inside the retention window.
    version: 8,
    name: 'webhook deliveries: indexes the hot path paid for without a reader',
    sql: `
      DROP INDEX webhook_deliveries_pending;
      DROP INDEX webhook_deliveries_completed;
    `,
  },
  {
    // An event was a row of its own and each of its deliveries another, joined on event_id to read
    // the body: two inserts (and the events' primary key) per event on the engine's thread. With
    // at most 10 endpoints a workspace, carrying the body on each delivery costs less than the
    // second table did; the event id stays on every delivery (webhook-id, the same for all of them).
    version: 9,
    name: 'webhook deliveries carry their event (type and body); events no longer a table',
    sql: `
      ALTER TABLE webhook_deliveries ADD COLUMN type TEXT NOT NULL DEFAULT '';
      ALTER TABLE webhook_deliveries ADD COLUMN body TEXT NOT NULL DEFAULT '';
      UPDATE webhook_deliveries SET type = e.type, body = e.body
        FROM webhook_events AS e WHERE e.event_id = webhook_deliveries.event_id;
      DROP TABLE webhook_events;
    `,
  },
  {
    // The engine on a local file numbers events from memory and folds the numbers into
    // webhook_sequences now and then, instead of an upsert per event (core/webhooks/sequences.ts):
    // the table holds every resource's number as of delivery `through_id`, the deliveries past it
    // their own. Until now every writer kept the table current: it is complete up to the last delivery.
    version: 10,
    name: 'webhook sequences folded in lazily (the delivery they are current through)',
    sql: `
      CREATE TABLE webhook_sequence_fold (
        only INTEGER PRIMARY KEY CHECK (only = 1),
        through_id INTEGER NOT NULL
      );
      INSERT INTO webhook_sequence_fold (only, through_id) SELECT 1, coalesce(max(id), 0) FROM webhook_deliveries;
    `,
  },
  {
    // A change carries what its listeners act on (core/storage/changes.ts), so none reads back what
    // was just written. Rows already there, and rows a node of an older release still writes, keep
    // format 0 and no payload: the feed reads what they lack from storage, as listeners did before.
    version: 11,
    name: 'changes carry their payload (typed by kind, JSON, versioned by format)',
    sql: `
      ALTER TABLE changes ADD COLUMN format INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE changes ADD COLUMN payload TEXT;
    `,
  },
  {
    // An agent's conversation (core/transcripts/): one row per agent run, one per turn, written as
    // it goes. Erasure deletes the run's row; its turns go with it (cascade).
    version: 12,
    name: 'transcripts: agent conversations and their turns',
    sql: `
      CREATE TABLE transcripts (
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        agent_id TEXT NOT NULL,
        room TEXT NOT NULL,
        identity TEXT NOT NULL,
        provider TEXT NOT NULL,
        preset_id TEXT,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        turns INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace_id, agent_id)
      );
      CREATE INDEX transcripts_by_start ON transcripts (workspace_id, started_at, agent_id);
      CREATE INDEX transcripts_by_room ON transcripts (workspace_id, room, started_at);
      CREATE INDEX transcripts_by_end ON transcripts (ended_at);
      CREATE TABLE transcript_turns (
        workspace_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        role TEXT NOT NULL,
        speaker TEXT NOT NULL,
        client_id TEXT,
        text TEXT,
        started_at INTEGER NOT NULL,
        ended_at INTEGER NOT NULL,
        interrupted INTEGER NOT NULL DEFAULT 0,
        interrupted_by TEXT,
        tool TEXT,
        PRIMARY KEY (workspace_id, agent_id, seq),
        FOREIGN KEY (workspace_id, agent_id) REFERENCES transcripts(workspace_id, agent_id) ON DELETE CASCADE
      ) WITHOUT ROWID;
      CREATE INDEX transcript_turns_by_client ON transcript_turns (workspace_id, client_id, agent_id) WHERE client_id IS NOT NULL;
      `,
    },
    {
    // Room recordings (core/recordings): one row per recording, its tracks as JSON; the files live
    // in the recording's directory on the node that recorded it (node_id). A room may record
    // every session by itself (room_settings.record_tracks).
    version: 13,
    name: 'room recordings and the room setting that records every session',
    sql: `
      CREATE TABLE recordings (
        recording_id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id) ON DELETE CASCADE,
        room TEXT NOT NULL,
        tracks TEXT NOT NULL,
        status TEXT NOT NULL,
        node_id TEXT NOT NULL,
        dir TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        duration_ms INTEGER,
        size_bytes INTEGER NOT NULL DEFAULT 0,
        track_list TEXT NOT NULL DEFAULT '[]',
        started_by TEXT NOT NULL,
        failure TEXT
      );
      CREATE INDEX recordings_by_workspace ON recordings(workspace_id, started_at);
      CREATE INDEX recordings_by_status ON recordings(status);
      ALTER TABLE room_settings ADD COLUMN record_tracks TEXT;
    `,
  },
  {
    // A preset may ask for its agents' conversations to be recorded (spec/agents.md#presets):
    // the tracks of the room recording its agents start (null: not recorded by the preset).
    version: 14,
    name: 'agent presets that record their conversations',
    sql: `
      ALTER TABLE agent_presets ADD COLUMN record_tracks TEXT;
    `,
  },
  {
    // Recording a batch of minted tokens wrote a page of this index per client in the batch (a
    // client's rows sit together), 2.6x the CPU of the rows themselves; its one query, the tokens
    // of a client minted since an instant, reads a range of the jti key instead (issuedTokens.ts).
    version: 15,
    name: 'issued tokens without the per-client index',
    sql: `
      DROP INDEX issued_tokens_by_client;
    `,
  },
]

/** Apply every migration newer than the file's version; returns the versions applied. */
export const migrate = (db: Db, list: ReadonlyArray<Migration> = migrations, now = Date.now()): number[] => {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }
  const current = row.v ?? 0
  // A release older than the schema would write tables a newer one changed (9 dropped one):
  // refused, with what to do, instead of failing request by request.
  const known = Math.max(0, ...list.map((m) => m.version))
  if (current > known) {
    throw new Error(
      `the database's schema is version ${current}, newer than this Hark knows (${known}): run the release that upgraded it, or a newer one`,
    )
  }
  const applied: number[] = []
  for (const m of [...list].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue
    db.exec('BEGIN IMMEDIATE')
    try {
      // Another process (a node starting beside this one) may have applied it since the read above.
      if (db.prepare('SELECT 1 AS done FROM schema_migrations WHERE version = ?').get(m.version)) {
        db.exec('COMMIT')
        continue
      }
      db.exec(m.sql)
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, now)
      db.exec('COMMIT')
    } catch (e) {
      db.exec('ROLLBACK')
      throw new Error(`migration ${m.version} (${m.name}) failed: ${(e as Error).message}`)
    }
    applied.push(m.version)
  }
  return applied
}
