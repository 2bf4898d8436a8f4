// Package deploy holds what deploys Vigil beyond one machine, as files
// rather than code: the container image (Dockerfile), the full stack on one
// Docker host (compose.yaml) and the Helm chart (helm/vigil), the API and
// processor roles scaled apart, and what an operator alerts on
// (prometheus/vigil-rules.yaml, grafana/vigil-dashboard.json). Its tests
// lint and render the chart with helm, check the image's build and the
// compose file against the binary's own configuration
// (config.Variables), and check every metric the rules and the dashboard
// name against a running Vigil's /metrics.
//
// It imports nothing.
package deploy
