-- Workflow-tool runs (integrations/workflow): one workflow record per run,
-- keyed by the organization and its external id
-- workflow-tool:{workflow_id}:{execution_id}, so that a repeated delivery
-- finds and updates it; its nodes as agents and its node executions. A
-- delivery replaces the agents and executions of its record; their ids are
-- derived from the record's id, so they stay stable.

CREATE TABLE workflows (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    external_id       TEXT NOT NULL,
    tool_workflow_id  TEXT NOT NULL,
    tool_execution_id TEXT NOT NULL,
    name              TEXT NOT NULL,
    framework         TEXT NOT NULL,
    state             TEXT NOT NULL,
    reported_status   TEXT NOT NULL,
    mode              TEXT NOT NULL,
    metadata          TEXT NOT NULL,
    started_at        BIGINT NOT NULL,
    finished_at       BIGINT,
    agent_count       INTEGER NOT NULL,
    execution_count   INTEGER NOT NULL,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    UNIQUE (org_id, external_id)
);
CREATE INDEX workflows_org ON workflows (org_id, started_at);
CREATE INDEX workflows_tool ON workflows (org_id, tool_workflow_id);

CREATE TABLE workflow_agents (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    workflow_id     TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    role            TEXT NOT NULL,
    kind            TEXT NOT NULL,
    execution_count INTEGER NOT NULL,
    created_at      BIGINT NOT NULL,
    UNIQUE (workflow_id, name)
);

CREATE TABLE workflow_executions (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL,
    workflow_id       TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    agent_id          TEXT NOT NULL REFERENCES workflow_agents (id) ON DELETE CASCADE,
    agent_name        TEXT NOT NULL,
    position          INTEGER NOT NULL,
    input_data        TEXT NOT NULL,
    output_data       TEXT NOT NULL,
    execution_time_ms BIGINT NOT NULL,
    status            TEXT NOT NULL,
    error             TEXT NOT NULL,
    created_at        BIGINT NOT NULL,
    UNIQUE (workflow_id, position)
);
-- agent_id leads: the cascade from a deleted agent and the agent's executions
-- page read it.
CREATE INDEX workflow_executions_agent ON workflow_executions (agent_id, position);
