// Package workflow is the workflow-tool receiver of spec 2 (A): POST
// /webhooks/workflow-tool/execution takes one execution report per run,
// keeps it as a workflow record whose nodes are agents, and logs each node
// execution; GET /webhooks/workflow-tool/config and POST
// /webhooks/workflow-tool/test help set the tool up; GET /workflows,
// /workflows/{workflow_id}, /workflows/{workflow_id}/agents and
// /workflows/{workflow_id}/executions read the records back.
//
// # Mapping
//
// A report becomes the workflow record with external id
// workflow-tool:{workflow_id}:{execution_id} and framework "workflow-tool";
// each node becomes an agent named node_name whose role is node_type, an AI
// agent when the type ends in .openAi or .openAiChat (whatever the tool's
// prefix) or contains "ai" (case-sensitive, as the spec writes it: so
// "emailSend" counts too), else a utility agent; each node record becomes
// one execution with its input, output, execution_time_ms, status and
// error. A node name reported twice in one run (a loop) is one agent with
// several executions.
//
// # Settings
//
// PUT /webhooks/workflow-tool/config (integrations:write) sets the
// organization's track_all_nodes and min_execution_time_ms, which GET
// config answers: without track_all_nodes only AI nodes become agents and
// executions; executions shorter than min_execution_time_ms are left out
// unless they failed. They apply to the reports received afterwards; a
// node left out keeps its position, so execution ids do not move.
//
// # LLM nodes
//
// An AI node's execution whose output reports token counts (OpenAI's
// usage, the LangChain nodes' tokenUsage, or tokens as /llm/completions
// takes them) is an LLMCall, logged through LLMLog after the record is
// stored: the application appends it to the event log as a completion of
// the tool workflow's model, as POST /llm/completions does, with an id
// derived from the organization, the run and the node's position, so that
// a redelivered report counts it once.
//
// # States
//
//	report status  finished_at  record state
//	running        any          running
//	success        set          completed
//	error          set          failed
//	success/error  absent       running (the run has not reported its end)
//
// A repeated delivery of the same execution (same organization and
// external id) updates the stored record in place: its fields, agents and
// executions become the report's, its id and created_at stay, and agent
// and execution ids are derived from the record's id, the agent's name
// and the node's position, so they are stable across deliveries. A report
// that would move a completed or failed record back to running (a late
// retry of an earlier report) is acknowledged and changes nothing.
// Concurrent deliveries of one run make one record.
//
// # Authentication
//
// The three receiver routes take an API key (Authorization: Bearer
// vgl_live_...) whose role and scopes grant webhooks:write; a login token
// answers 401, as a missing or revoked key does, and a key without the
// permission 403. Bodies over MaxBody (10 MiB) answer 413. The read routes
// take integrations:read, with a login token or a key.
//
// It imports identity, the platform and the store errors; it must not
// import the event log, the analytical store, an engine or another API
// package.
package workflow
