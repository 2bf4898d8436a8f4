// Package workflow is the workflow-tool receiver of spec 2 (A): POST
// /webhooks/workflow-tool/execution takes one execution report per run,
// keeps it as a workflow record whose nodes are agents, and logs each node
// execution; GET /webhooks/workflow-tool/config and POST
// /webhooks/workflow-tool/test help set the tool up; GET /workflows,
// /workflows/{workflow_id}, /workflows/{workflow_id}/agents and
// /workflows/{workflow_id}/executions read the records back.
//
// How a report maps onto a workflow, its agents and executions is on
// report.run; which nodes are tracked on Settings; how LLM nodes become
// completions on LLMCalls; a run's states and which report replaces
// another on State.
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
