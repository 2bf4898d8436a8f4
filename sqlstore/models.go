package sqlstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

var _ registry.Store = (*DB)(nil)

const modelColumns = `id, org_id, name, version, description, model_type, framework, status, status_before_archive,
	owner_id, target_variable, metadata, baseline_metrics, monitoring_config, monitoring_enabled, features,
	fairness_attributes, protected_groups, tags, prediction_count, last_prediction_at, archived_at, created_at, updated_at`

// modelDocs are the JSON columns of a model, in column order.
func modelDocs(m *registry.Model) []any {
	return []any{&m.Metadata, &m.BaselineMetrics, &m.MonitoringConfig}
}

func modelLists(m *registry.Model) []any {
	return []any{&m.Features, &m.FairnessAttributes, &m.ProtectedGroups, &m.Tags}
}

func encodeAll(vs []any) ([]any, error) {
	out := make([]any, len(vs))
	for i, v := range vs {
		s, err := toJSON(v)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// modelArgs returns m's values in modelColumns order.
func modelArgs(m *registry.Model) ([]any, error) {
	docs, err := encodeAll(modelDocs(m))
	if err != nil {
		return nil, err
	}
	lists, err := encodeAll(modelLists(m))
	if err != nil {
		return nil, err
	}
	args := []any{m.ID, m.OrgID, m.Name, m.Version, m.Description, m.ModelType, m.Framework, m.Status,
		m.StatusBeforeArchive, m.OwnerID, m.TargetVariable}
	args = append(args, docs...)
	args = append(args, m.MonitoringEnabled)
	args = append(args, lists...)
	return append(args, m.PredictionCount, nullMicros(m.LastPredictionAt), nullMicros(m.ArchivedAt),
		micros(m.CreatedAt), micros(m.UpdatedAt)), nil
}

func (s *DB) scanModel(row interface{ Scan(...any) error }) (registry.Model, error) {
	var m registry.Model
	var docs, lists [4]string
	var lastPred, archived sql.NullInt64
	var created, updated int64
	err := row.Scan(&m.ID, &m.OrgID, &m.Name, &m.Version, &m.Description, &m.ModelType, &m.Framework, &m.Status,
		&m.StatusBeforeArchive, &m.OwnerID, &m.TargetVariable, &docs[0], &docs[1], &docs[2], &m.MonitoringEnabled,
		&lists[0], &lists[1], &lists[2], &lists[3], &m.PredictionCount, &lastPred, &archived, &created, &updated)
	if err != nil {
		return m, s.wrap(err)
	}
	for i, dst := range modelDocs(&m) {
		if err := fromJSON(docs[i], dst); err != nil {
			return m, err
		}
	}
	for i, dst := range modelLists(&m) {
		if err := fromJSON(lists[i], dst); err != nil {
			return m, err
		}
	}
	m.LastPredictionAt, m.ArchivedAt = fromNullMicros(lastPred), fromNullMicros(archived)
	m.CreatedAt, m.UpdatedAt = fromMicros(created), fromMicros(updated)
	return m, nil
}

// CreateModel implements registry.Store.
func (s *DB) CreateModel(ctx context.Context, m registry.Model) error {
	args, err := modelArgs(&m)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, `INSERT INTO models (`+modelColumns+`, search_text) VALUES (`+placeholders(len(args)+1)+`)`,
			append(args, searchText(m))...); err != nil {
			return err
		}
		return s.setTags(ctx, tx, m)
	})
}

func (s *DB) setTags(ctx context.Context, tx *sql.Tx, m registry.Model) error {
	if _, err := s.exec(ctx, tx, `DELETE FROM model_tags WHERE model_id = ?`, m.ID); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, t := range m.Tags {
		if seen[t] {
			continue
		}
		seen[t] = true
		if _, err := s.exec(ctx, tx, `INSERT INTO model_tags (model_id, org_id, tag) VALUES (?, ?, ?)`, m.ID, m.OrgID, t); err != nil {
			return err
		}
	}
	return nil
}

// Model implements registry.Store.
func (s *DB) Model(ctx context.Context, orgID, id string) (registry.Model, error) {
	return s.scanModel(s.db.QueryRowContext(ctx, s.q(`SELECT `+modelColumns+` FROM models WHERE org_id = ? AND id = ?`), orgID, id))
}

// Models implements registry.Store, newest first.
func (s *DB) Models(ctx context.Context, orgID string, f registry.Filter) ([]registry.Model, error) {
	where := []string{"org_id = ?"}
	args := []any{orgID}
	add := func(cond string, v ...any) {
		where = append(where, cond)
		args = append(args, v...)
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	if f.ModelType != "" {
		add("model_type = ?", f.ModelType)
	}
	if f.OwnerID != "" {
		add("owner_id = ?", f.OwnerID)
	}
	for _, t := range f.Tags {
		add("id IN (SELECT model_id FROM model_tags WHERE org_id = ? AND tag = ?)", orgID, t)
	}
	if f.Search != "" {
		add(`search_text LIKE ? ESCAPE '\'`, "%"+escapeLike(strings.ToLower(f.Search))+"%")
	}
	args = append(args, f.Limit, f.Offset)
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+modelColumns+` FROM models WHERE `+strings.Join(where, " AND ")+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`), args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanModel)
}

// searchText is what a model search matches: name and description, lower
// case in Go so that every alphabet folds the same on every engine (SQL
// LOWER folds only A-Z on SQLite and under PostgreSQL's C locale). The
// line break keeps a match from spanning name and description.
func searchText(m registry.Model) string {
	return strings.ToLower(m.Name + "\n" + m.Description)
}

// escapeLike makes s match itself literally in a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// ModelVersions implements registry.Store.
func (s *DB) ModelVersions(ctx context.Context, orgID, name string) ([]registry.Model, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+modelColumns+` FROM models WHERE org_id = ? AND name = ? ORDER BY created_at DESC, id DESC`), orgID, name)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanModel)
}

// UpdateModel implements registry.Store.
func (s *DB) UpdateModel(ctx context.Context, orgID, id string, change func(*registry.Model) error) (registry.Model, error) {
	var m registry.Model
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		m, err = s.scanModel(tx.QueryRowContext(ctx, s.q(`SELECT `+modelColumns+` FROM models WHERE org_id = ? AND id = ?`+s.d.ForUpdate), orgID, id))
		if err != nil {
			return err
		}
		if err := change(&m); err != nil {
			return err
		}
		m.ID, m.OrgID = id, orgID
		args, err := modelArgs(&m)
		if err != nil {
			return err
		}
		args = args[2:]
		if _, err := s.exec(ctx, tx, `UPDATE models SET `+assignments(modelColumns, 2)+`, search_text = ? WHERE org_id = ? AND id = ?`,
			append(args, searchText(m), orgID, id)...); err != nil {
			return err
		}
		if err := s.setTags(ctx, tx, m); err != nil {
			return err
		}
		m, err = s.scanModel(tx.QueryRowContext(ctx, s.q(`SELECT `+modelColumns+` FROM models WHERE org_id = ? AND id = ?`), orgID, id))
		return err
	})
	return m, err
}

// DeleteModel implements registry.Store.
func (s *DB) DeleteModel(ctx context.Context, orgID, id string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, `DELETE FROM model_tags WHERE org_id = ? AND model_id = ?`, orgID, id); err != nil {
			return err
		}
		n, err := s.exec(ctx, tx, `DELETE FROM models WHERE org_id = ? AND id = ?`, orgID, id)
		if err == nil && n == 0 {
			err = store.ErrNotFound
		}
		return err
	})
}

// assignments returns "col = ?, ..." for the comma-separated columns after
// the first skip (the key columns, which an UPDATE keeps).
func assignments(columns string, skip int) string {
	cols := strings.Split(columns, ",")
	sets := make([]string, 0, len(cols))
	for _, c := range cols[skip:] {
		sets = append(sets, strings.TrimSpace(c)+" = ?")
	}
	return strings.Join(sets, ", ")
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
