package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/integrations/workflow"
	"github.com/vigilhq/vigil/store"
)

var workflowTests = []test{
	{"Workflow/RoundTrip", testWorkflowRoundTrip},
	{"Workflow/Redeliver", testWorkflowRedeliver},
	{"Workflow/Concurrent", testWorkflowConcurrent},
	{"Workflow/OtherOrg", testWorkflowOtherOrg},
	{"Workflow/List", testWorkflowList},
	{"Workflow/Settings", testWorkflowSettings},
}

// newRun is a run of the tool's workflow wf, execution ex, started n
// seconds after base, with the node names nodes (a name may repeat).
func newRun(orgID, wf, ex string, n int, state string, nodes ...string) workflow.Run {
	r := workflow.Run{Workflow: workflow.Workflow{OrgID: orgID, ExternalID: workflow.ExternalID(wf, ex), ToolWorkflowID: wf,
		ToolExecutionID: ex, Name: "flow " + wf, Framework: workflow.Source, State: state, ReportedStatus: "running",
		Mode: "trigger", Metadata: map[string]any{"env": "prod"}, StartedAt: at(n), UpdatedAt: at(n)}}
	seen := map[string]int{}
	for i, name := range nodes {
		if j, ok := seen[name]; ok {
			r.Agents[j].Executions++
		} else {
			seen[name] = len(r.Agents)
			r.Agents = append(r.Agents, workflow.Agent{OrgID: orgID, Name: name, Role: "base." + name,
				Kind: workflow.Kind("base." + name), Executions: 1})
		}
		r.Executions = append(r.Executions, workflow.Execution{OrgID: orgID, AgentName: name, Position: i,
			Input: map[string]any{"i": float64(i)}, Output: map[string]any{"text": "out " + name}, ExecutionTimeMS: int64(10 * i),
			Status: "success"})
	}
	if state != workflow.StateRunning {
		r.Workflow.FinishedAt, r.Workflow.ReportedStatus = ptr(at(n+5)), "success"
	}
	r.Workflow.AgentCount, r.Workflow.ExecutionCount = len(r.Agents), len(r.Executions)
	r.Bind(newID(), at(n))
	return r
}

func storedWorkflow(w workflow.Workflow) workflow.Workflow {
	w.StartedAt, w.CreatedAt, w.UpdatedAt, w.FinishedAt = stored(w.StartedAt), stored(w.CreatedAt), stored(w.UpdatedAt), storedPtr(w.FinishedAt)
	return w
}

func always(workflow.Workflow) bool { return true }

// checkRun fails the test unless the store holds run as stored.
func checkRun(t *testing.T, s Store, what string, run workflow.Run) {
	t.Helper()
	w := run.Workflow
	got, err := s.Workflow(ctx(t), w.OrgID, w.ID)
	must(t, err, what+": Workflow")
	equal(t, what+": workflow", got, storedWorkflow(w))
	checkUTC(t, what, &got.StartedAt, &got.CreatedAt, &got.UpdatedAt, got.FinishedAt)
	agents, total, err := s.WorkflowAgents(ctx(t), w.OrgID, w.ID, 0, 0)
	must(t, err, what+": WorkflowAgents")
	want := append([]workflow.Agent(nil), run.Agents...)
	for i := range want {
		want[i].CreatedAt = stored(want[i].CreatedAt)
	}
	slices.SortFunc(want, func(x, y workflow.Agent) int { return strings.Compare(x.Name, y.Name) })
	if total != int64(len(want)) {
		t.Errorf("%s: got %d agents in total, want %d", what, total, len(want))
	}
	equal(t, what+": agents", agents, want)
	execs, total, err := s.WorkflowExecutions(ctx(t), w.OrgID, w.ID, workflow.ExecutionFilter{})
	must(t, err, what+": WorkflowExecutions")
	wantExecs := append([]workflow.Execution(nil), run.Executions...)
	for i := range wantExecs {
		wantExecs[i].CreatedAt = stored(wantExecs[i].CreatedAt)
	}
	if total != int64(len(wantExecs)) {
		t.Errorf("%s: got %d executions in total, want %d", what, total, len(wantExecs))
	}
	equal(t, what+": executions", execs, wantExecs)
}

func testWorkflowRoundTrip(t *testing.T, s Store) {
	o := newOrg(t, s)
	run := newRun(o.ID, "wf1", "ex1", 1, workflow.StateRunning, "webhook", "openAi", "openAi", "email")
	w, created, err := s.SaveRun(ctx(t), run, always)
	must(t, err, "SaveRun")
	if !created {
		t.Fatal("SaveRun: got created false for a new run, want true")
	}
	equal(t, "SaveRun's answer", w, storedWorkflow(run.Workflow))
	checkRun(t, s, "new run", run)
	execs, total, err := s.WorkflowExecutions(ctx(t), o.ID, run.Workflow.ID, workflow.ExecutionFilter{AgentID: run.Agents[1].ID, Offset: 1, Limit: 5})
	must(t, err, "WorkflowExecutions of one agent")
	if total != 2 || len(execs) != 1 || execs[0].Position != 2 {
		t.Errorf("executions of openAi from offset 1: got %d in total and %+v, want 2 and position 2", total, execs)
	}
}

// testWorkflowRedeliver: a second delivery of the run replaces its fields,
// agents and executions under the same ids; one that replace refuses
// changes nothing.
func testWorkflowRedeliver(t *testing.T, s Store) {
	o := newOrg(t, s)
	first := newRun(o.ID, "wf1", "ex1", 1, workflow.StateRunning, "webhook", "openAi")
	_, _, err := s.SaveRun(ctx(t), first, always)
	must(t, err, "SaveRun first")
	final := newRun(o.ID, "wf1", "ex1", 1, workflow.StateCompleted, "webhook", "openAi", "email")
	final.Workflow.UpdatedAt = at(9)
	var seen workflow.Workflow
	w, created, err := s.SaveRun(ctx(t), final, func(st workflow.Workflow) bool { seen = st; return true })
	must(t, err, "SaveRun final")
	if created || w.ID != first.Workflow.ID {
		t.Fatalf("SaveRun final: got created %v and id %s, want false and %s", created, w.ID, first.Workflow.ID)
	}
	equal(t, "replace's argument", seen, storedWorkflow(first.Workflow))
	final.Bind(first.Workflow.ID, first.Workflow.CreatedAt)
	for i := range first.Agents {
		if final.Agents[i].ID != first.Agents[i].ID {
			t.Errorf("agent %s: got id %s on redelivery, want %s", first.Agents[i].Name, final.Agents[i].ID, first.Agents[i].ID)
		}
	}
	checkRun(t, s, "redelivered run", final)

	late := newRun(o.ID, "wf1", "ex1", 1, workflow.StateRunning, "webhook")
	w, created, err = s.SaveRun(ctx(t), late, func(workflow.Workflow) bool { return false })
	must(t, err, "SaveRun refused")
	if created || w.State != workflow.StateCompleted {
		t.Errorf("SaveRun refused: got created %v and state %s, want false and completed", created, w.State)
	}
	checkRun(t, s, "after a refused delivery", final)
}

// testWorkflowConcurrent: deliveries of one run at once make one record.
func testWorkflowConcurrent(t *testing.T, s Store) {
	o := newOrg(t, s)
	const n = 8
	ids := make([]string, n)
	createdCount := 0
	results := make([]bool, n)
	errs := parallel(n, func(i int) error {
		w, created, err := s.SaveRun(ctx(t), newRun(o.ID, "wf1", "ex1", 1, workflow.StateCompleted, "a", "b"), always)
		ids[i], results[i] = w.ID, created
		return err
	})
	for i, err := range errs {
		must(t, err, fmt.Sprintf("SaveRun %d", i))
		if results[i] {
			createdCount++
		}
		if ids[i] != ids[0] {
			t.Errorf("SaveRun %d: got id %s, want %s as the others", i, ids[i], ids[0])
		}
	}
	if createdCount != 1 {
		t.Errorf("got %d creating calls, want 1", createdCount)
	}
	ws, total, err := s.Workflows(ctx(t), o.ID, workflow.Filter{})
	must(t, err, "Workflows")
	if total != 1 || len(ws) != 1 {
		t.Fatalf("got %d records, want 1", total)
	}
	agents, _, err := s.WorkflowAgents(ctx(t), o.ID, ws[0].ID, 0, 0)
	must(t, err, "WorkflowAgents")
	if len(agents) != 2 {
		t.Errorf("got %d agents, want 2", len(agents))
	}
}

func testWorkflowOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	run := newRun(a.ID, "wf1", "ex1", 1, workflow.StateRunning, "n")
	_, _, err := s.SaveRun(ctx(t), run, always)
	must(t, err, "SaveRun")
	_, err = s.Workflow(ctx(t), b.ID, run.Workflow.ID)
	wantErr(t, err, store.ErrNotFound, "Workflow of another org")
	_, _, err = s.WorkflowAgents(ctx(t), b.ID, run.Workflow.ID, 0, 0)
	wantErr(t, err, store.ErrNotFound, "WorkflowAgents of another org")
	_, _, err = s.WorkflowExecutions(ctx(t), b.ID, run.Workflow.ID, workflow.ExecutionFilter{})
	wantErr(t, err, store.ErrNotFound, "WorkflowExecutions of another org")
	_, _, err = s.WorkflowExecutions(ctx(t), b.ID, run.Workflow.ID, workflow.ExecutionFilter{AgentID: run.Agents[0].ID})
	wantErr(t, err, store.ErrNotFound, "WorkflowExecutions of another org's agent")
	_, _, err = s.WorkflowExecutions(ctx(t), a.ID, run.Workflow.ID, workflow.ExecutionFilter{AgentID: newID()})
	wantErr(t, err, store.ErrNotFound, "WorkflowExecutions of an agent the record does not have")
	// The same external id in another organization is another record.
	other := newRun(b.ID, "wf1", "ex1", 1, workflow.StateRunning, "n")
	crossed := false
	_, created, err := s.SaveRun(ctx(t), other, func(workflow.Workflow) bool { crossed = true; return false })
	must(t, err, "SaveRun in org b")
	if !created || crossed {
		t.Errorf("SaveRun in org b: got created %v and replace called %v, want a record of its own", created, crossed)
	}
}

func testWorkflowList(t *testing.T, s Store) {
	o := newOrg(t, s)
	var runs []workflow.Run
	for i, st := range []string{workflow.StateRunning, workflow.StateCompleted, workflow.StateCompleted, workflow.StateFailed} {
		r := newRun(o.ID, fmt.Sprintf("wf%d", i%2), fmt.Sprintf("ex%d", i), i, st, "n")
		if st == workflow.StateFailed {
			r.Workflow.ReportedStatus = "error"
		}
		_, _, err := s.SaveRun(ctx(t), r, always)
		must(t, err, "SaveRun")
		runs = append(runs, r)
	}
	ws, total, err := s.Workflows(ctx(t), o.ID, workflow.Filter{Limit: 2})
	must(t, err, "Workflows")
	if total != 4 || len(ws) != 2 || ws[0].ID != runs[3].Workflow.ID || ws[1].ID != runs[2].Workflow.ID {
		t.Errorf("first page: got %d in total and %d records, want 4 and the two started last", total, len(ws))
	}
	ws, total, err = s.Workflows(ctx(t), o.ID, workflow.Filter{State: workflow.StateCompleted})
	must(t, err, "Workflows completed")
	if total != 2 || len(ws) != 2 {
		t.Errorf("completed: got %d, want 2", total)
	}
	_, total, err = s.Workflows(ctx(t), o.ID, workflow.Filter{ToolWorkflowID: "wf1"})
	must(t, err, "Workflows of wf1")
	if total != 2 {
		t.Errorf("runs of wf1: got %d, want 2", total)
	}
}

// testWorkflowSettings: an organization without settings reads the
// defaults; stored ones read back, replace each other, and stay the
// organization's own.
func testWorkflowSettings(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	got, err := s.WorkflowSettings(ctx(t), a.ID)
	must(t, err, "WorkflowSettings")
	equal(t, "defaults", got, workflow.DefaultSettings)
	for _, want := range []workflow.Settings{{TrackAllNodes: false, MinExecutionTimeMS: 250}, {TrackAllNodes: true, MinExecutionTimeMS: 0}} {
		must(t, s.PutWorkflowSettings(ctx(t), a.ID, want, at(5)), "PutWorkflowSettings")
		got, err = s.WorkflowSettings(ctx(t), a.ID)
		must(t, err, "WorkflowSettings")
		equal(t, "stored", got, want)
	}
	must(t, s.PutWorkflowSettings(ctx(t), a.ID, workflow.Settings{MinExecutionTimeMS: 9}, at(6)), "PutWorkflowSettings")
	got, err = s.WorkflowSettings(ctx(t), b.ID)
	must(t, err, "WorkflowSettings of another organization")
	equal(t, "another organization", got, workflow.DefaultSettings)
}
