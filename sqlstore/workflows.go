package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/vigilhq/vigil/integrations/workflow"
)

var _ workflow.Store = (*DB)(nil)

const workflowColumns = `id, org_id, external_id, tool_workflow_id, tool_execution_id, name, framework, state,
	reported_status, mode, metadata, started_at, finished_at, agent_count, execution_count, created_at, updated_at`

const agentColumns = `id, org_id, workflow_id, name, role, kind, execution_count, created_at`

const executionColumns = `id, org_id, workflow_id, agent_id, agent_name, position, input_data, output_data,
	execution_time_ms, status, error, created_at`

// rowsPerInsert bounds the rows of one multi-row INSERT, below both
// engines' limits on bound parameters.
const rowsPerInsert = 500

func (s *DB) scanWorkflow(row interface{ Scan(...any) error }) (workflow.Workflow, error) {
	var w workflow.Workflow
	var meta string
	var started, created, updated int64
	var finished sql.NullInt64
	if err := row.Scan(&w.ID, &w.OrgID, &w.ExternalID, &w.ToolWorkflowID, &w.ToolExecutionID, &w.Name, &w.Framework,
		&w.State, &w.ReportedStatus, &w.Mode, &meta, &started, &finished, &w.AgentCount, &w.ExecutionCount,
		&created, &updated); err != nil {
		return w, s.wrap(err)
	}
	w.StartedAt, w.FinishedAt, w.CreatedAt, w.UpdatedAt = fromMicros(started), fromNullMicros(finished), fromMicros(created), fromMicros(updated)
	return w, fromJSON(meta, &w.Metadata)
}

func workflowArgs(w workflow.Workflow) ([]any, error) {
	meta, err := toJSON(w.Metadata)
	if err != nil {
		return nil, err
	}
	return []any{w.ID, w.OrgID, w.ExternalID, w.ToolWorkflowID, w.ToolExecutionID, w.Name, w.Framework, w.State,
		w.ReportedStatus, w.Mode, meta, micros(w.StartedAt), nullMicros(w.FinishedAt), w.AgentCount, w.ExecutionCount,
		micros(w.CreatedAt), micros(w.UpdatedAt)}, nil
}

// SaveRun implements workflow.Store. The INSERT ... ON CONFLICT DO NOTHING
// takes the (org_id, external_id) key or waits for the transaction that
// holds it; the SELECT that follows locks the stored row.
func (s *DB) SaveRun(ctx context.Context, run workflow.Run, replace func(workflow.Workflow) bool) (workflow.Workflow, bool, error) {
	var out workflow.Workflow
	var created bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		args, err := workflowArgs(run.Workflow)
		if err != nil {
			return err
		}
		n, err := s.exec(ctx, tx, `INSERT INTO workflows (`+workflowColumns+`) VALUES (`+placeholders(len(args))+
			`) ON CONFLICT (org_id, external_id) DO NOTHING`, args...)
		if err != nil {
			return err
		}
		if n == 1 {
			created, out = true, run.Workflow
			return s.insertChildren(ctx, tx, run)
		}
		stored, err := s.scanWorkflow(tx.QueryRowContext(ctx, s.q(`SELECT `+workflowColumns+
			` FROM workflows WHERE org_id = ? AND external_id = ?`+s.d.ForUpdate), run.Workflow.OrgID, run.Workflow.ExternalID))
		if err != nil {
			return err
		}
		out = stored
		if !replace(stored) {
			return nil
		}
		run.Bind(stored.ID, stored.CreatedAt)
		if args, err = workflowArgs(run.Workflow); err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `UPDATE workflows SET tool_workflow_id = ?, tool_execution_id = ?, name = ?,
			framework = ?, state = ?, reported_status = ?, mode = ?, metadata = ?, started_at = ?, finished_at = ?,
			agent_count = ?, execution_count = ?, updated_at = ? WHERE id = ?`,
			slices.Concat(args[3:15], []any{args[16], stored.ID})...); err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `DELETE FROM workflow_executions WHERE workflow_id = ?`, stored.ID); err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `DELETE FROM workflow_agents WHERE workflow_id = ?`, stored.ID); err != nil {
			return err
		}
		out = run.Workflow
		return s.insertChildren(ctx, tx, run)
	})
	if err != nil {
		return workflow.Workflow{}, false, err
	}
	out.CreatedAt, out.UpdatedAt, out.StartedAt = fromMicros(micros(out.CreatedAt)), fromMicros(micros(out.UpdatedAt)), fromMicros(micros(out.StartedAt))
	out.FinishedAt = fromNullMicros(nullMicros(out.FinishedAt))
	return out, created, nil
}

// insertChildren inserts the run's agents, then its executions.
func (s *DB) insertChildren(ctx context.Context, tx *sql.Tx, run workflow.Run) error {
	agents := make([][]any, len(run.Agents))
	for i, a := range run.Agents {
		agents[i] = []any{a.ID, a.OrgID, a.WorkflowID, a.Name, a.Role, a.Kind, a.Executions, micros(a.CreatedAt)}
	}
	if err := s.insertRows(ctx, tx, "workflow_agents", agentColumns, agents); err != nil {
		return err
	}
	execs := make([][]any, len(run.Executions))
	for i, e := range run.Executions {
		in, err := toJSON(e.Input)
		if err != nil {
			return err
		}
		out, err := toJSON(e.Output)
		if err != nil {
			return err
		}
		execs[i] = []any{e.ID, e.OrgID, e.WorkflowID, e.AgentID, e.AgentName, e.Position, in, out,
			e.ExecutionTimeMS, e.Status, e.Error, micros(e.CreatedAt)}
	}
	return s.insertRows(ctx, tx, "workflow_executions", executionColumns, execs)
}

// insertRows inserts rows into table, rowsPerInsert at a time.
func (s *DB) insertRows(ctx context.Context, tx *sql.Tx, table, columns string, rows [][]any) error {
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), rowsPerInsert)]
		rows = rows[len(chunk):]
		values := make([]string, len(chunk))
		var args []any
		for i, r := range chunk {
			values[i] = "(" + placeholders(len(r)) + ")"
			args = append(args, r...)
		}
		if _, err := s.exec(ctx, tx, `INSERT INTO `+table+` (`+columns+`) VALUES `+strings.Join(values, ", "), args...); err != nil {
			return err
		}
	}
	return nil
}

// Workflow implements workflow.Store.
func (s *DB) Workflow(ctx context.Context, orgID, id string) (workflow.Workflow, error) {
	return s.scanWorkflow(s.db.QueryRowContext(ctx, s.q(`SELECT `+workflowColumns+` FROM workflows WHERE org_id = ? AND id = ?`), orgID, id))
}

// Workflows implements workflow.Store.
func (s *DB) Workflows(ctx context.Context, orgID string, f workflow.Filter) ([]workflow.Workflow, int64, error) {
	where, args := []string{"org_id = ?"}, []any{orgID}
	if f.State != "" {
		where, args = append(where, "state = ?"), append(args, f.State)
	}
	if f.ToolWorkflowID != "" {
		where, args = append(where, "tool_workflow_id = ?"), append(args, f.ToolWorkflowID)
	}
	return listPage(ctx, s, "workflows", workflowColumns, strings.Join(where, " AND "), "started_at DESC, id DESC",
		args, f.Offset, f.Limit, s.scanWorkflow)
}

// ownsWorkflow answers store.ErrNotFound unless orgID has the record id.
func (s *DB) ownsWorkflow(ctx context.Context, orgID, id string) error {
	var one int
	return s.wrap(s.db.QueryRowContext(ctx, s.q(`SELECT 1 FROM workflows WHERE org_id = ? AND id = ?`), orgID, id).Scan(&one))
}

func (s *DB) scanAgent(row interface{ Scan(...any) error }) (workflow.Agent, error) {
	var a workflow.Agent
	var created int64
	err := row.Scan(&a.ID, &a.OrgID, &a.WorkflowID, &a.Name, &a.Role, &a.Kind, &a.Executions, &created)
	a.CreatedAt = fromMicros(created)
	return a, s.wrap(err)
}

// WorkflowAgents implements workflow.Store.
func (s *DB) WorkflowAgents(ctx context.Context, orgID, workflowID string, offset, limit int) ([]workflow.Agent, int64, error) {
	if err := s.ownsWorkflow(ctx, orgID, workflowID); err != nil {
		return nil, 0, err
	}
	return listPage(ctx, s, "workflow_agents", agentColumns, "org_id = ? AND workflow_id = ?", "name, id",
		[]any{orgID, workflowID}, offset, limit, s.scanAgent)
}

func (s *DB) scanExecution(row interface{ Scan(...any) error }) (workflow.Execution, error) {
	var e workflow.Execution
	var in, out string
	var created int64
	if err := row.Scan(&e.ID, &e.OrgID, &e.WorkflowID, &e.AgentID, &e.AgentName, &e.Position, &in, &out,
		&e.ExecutionTimeMS, &e.Status, &e.Error, &created); err != nil {
		return e, s.wrap(err)
	}
	e.CreatedAt = fromMicros(created)
	if err := fromJSON(in, &e.Input); err != nil {
		return e, err
	}
	return e, fromJSON(out, &e.Output)
}

// WorkflowExecutions implements workflow.Store.
func (s *DB) WorkflowExecutions(ctx context.Context, orgID, workflowID string, f workflow.ExecutionFilter) ([]workflow.Execution, int64, error) {
	if err := s.ownsWorkflow(ctx, orgID, workflowID); err != nil {
		return nil, 0, err
	}
	where, args := []string{"org_id = ?", "workflow_id = ?"}, []any{orgID, workflowID}
	if f.AgentID != "" {
		var one int
		if err := s.db.QueryRowContext(ctx, s.q(`SELECT 1 FROM workflow_agents WHERE org_id = ? AND workflow_id = ? AND id = ?`),
			orgID, workflowID, f.AgentID).Scan(&one); err != nil {
			return nil, 0, s.wrap(err)
		}
		where, args = append(where, "agent_id = ?"), append(args, f.AgentID)
	}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, f.Status)
	}
	return listPage(ctx, s, "workflow_executions", executionColumns, strings.Join(where, " AND "), "position",
		args, f.Offset, f.Limit, s.scanExecution)
}

// WorkflowSettings implements workflow.Store.
func (s *DB) WorkflowSettings(ctx context.Context, orgID string) (workflow.Settings, error) {
	st := workflow.DefaultSettings
	err := s.db.QueryRowContext(ctx, s.q(`SELECT track_all_nodes, min_execution_time_ms FROM workflow_settings WHERE org_id = ?`),
		orgID).Scan(&st.TrackAllNodes, &st.MinExecutionTimeMS)
	if errors.Is(err, sql.ErrNoRows) {
		return workflow.DefaultSettings, nil
	}
	return st, s.wrap(err)
}

// PutWorkflowSettings implements workflow.Store.
func (s *DB) PutWorkflowSettings(ctx context.Context, orgID string, st workflow.Settings, now time.Time) error {
	_, err := s.exec(ctx, s.db, `INSERT INTO workflow_settings (org_id, track_all_nodes, min_execution_time_ms, updated_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (org_id) DO UPDATE SET track_all_nodes = excluded.track_all_nodes,
		min_execution_time_ms = excluded.min_execution_time_ms, updated_at = excluded.updated_at`,
		orgID, st.TrackAllNodes, st.MinExecutionTimeMS, micros(now))
	return err
}
