-- The trust score (governance/trust): each organization's weights and
-- each model's snapshots, taken in the transaction that changes an input
-- (a drift report stored, a bias audit completed, the weights changed).
-- Times are Unix microseconds.

CREATE TABLE trust_configs (
    org_id                TEXT PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    fairness_weight       DOUBLE PRECISION NOT NULL,
    drift_weight          DOUBLE PRECISION NOT NULL,
    explainability_weight DOUBLE PRECISION NOT NULL,
    updated_at            BIGINT NOT NULL
);

-- A model's newest snapshot number. The snapshot's transaction bumps it
-- first (an upsert, which holds the row until commit), so that snapshots
-- of one model are numbered in commit order and each reads the inputs
-- every earlier one wrote.
CREATE TABLE trust_heads (
    model_id TEXT PRIMARY KEY REFERENCES models (id) ON DELETE CASCADE,
    org_id   TEXT NOT NULL,
    seq      BIGINT NOT NULL
);

-- A component is NULL when its input is unavailable; the weights are
-- those renormalized over the available inputs. One snapshot per cause:
-- a replayed write cannot take a second one.
CREATE TABLE trust_snapshots (
    org_id                      TEXT NOT NULL,
    model_id                    TEXT NOT NULL REFERENCES models (id) ON DELETE CASCADE,
    seq                         BIGINT NOT NULL,
    snapshot_at                 BIGINT NOT NULL,
    cause_type                  TEXT NOT NULL,
    cause_id                    TEXT NOT NULL,
    trust_score                 DOUBLE PRECISION,
    fairness_component          DOUBLE PRECISION,
    drift_component             DOUBLE PRECISION,
    explainability_component    DOUBLE PRECISION,
    fairness_weight             DOUBLE PRECISION NOT NULL,
    drift_weight                DOUBLE PRECISION NOT NULL,
    explainability_weight       DOUBLE PRECISION NOT NULL,
    last_bias_audit_at          BIGINT,
    last_drift_report_at        BIGINT,
    explained_predictions_ratio DOUBLE PRECISION,
    PRIMARY KEY (model_id, seq),
    UNIQUE (model_id, cause_type, cause_id)
);
CREATE INDEX trust_snapshots_time ON trust_snapshots (model_id, snapshot_at);
CREATE INDEX trust_heads_org ON trust_heads (org_id);

-- The drift input: a model's newest report of each drift type.
CREATE INDEX drift_reports_type ON drift_reports (org_id, model_id, drift_type, created_at);

-- The fairness input: a model's newest completed audit.
CREATE INDEX bias_audits_completed ON bias_audits (org_id, model_id, completed_at) WHERE status = 'completed';
