// Package deploy holds what deploys Vigil beyond one machine, as files
// rather than code: the container image (Dockerfile), the full stack on one
// Docker host (compose.yaml) and the Helm chart (helm/vigil), the API and
// processor roles scaled apart. Its tests lint and render the chart with
// helm and check the image's build and the compose file against the
// binary's own configuration (config.Variables).
//
// It imports nothing.
package deploy
