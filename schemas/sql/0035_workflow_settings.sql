-- The workflow-tool receiver's settings of an organization (integrations/
-- workflow): whether every node is tracked or only the AI nodes, and the
-- shortest execution time a node must take to be logged (failed nodes are
-- logged whatever their time). An organization without a row tracks every
-- node whatever its time.

CREATE TABLE workflow_settings (
    org_id                TEXT PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    track_all_nodes       BOOLEAN NOT NULL,
    min_execution_time_ms BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL
);
