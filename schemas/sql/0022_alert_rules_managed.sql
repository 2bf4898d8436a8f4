-- Alert rules managed by another resource (issue 14): managed_by names it,
-- '' for a rule users define. A drift configuration's alert_config becomes
-- one rule with managed_by 'drift_config:<model_id>', written in the drift
-- configuration's own transaction; the alerts API shows such a rule but
-- refuses to change or delete it (409). One rule per managing resource.

ALTER TABLE alert_rules ADD COLUMN managed_by TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX alert_rules_managed ON alert_rules (org_id, managed_by) WHERE managed_by <> '';
