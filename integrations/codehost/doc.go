// Package codehost holds the records of the code-host connection of spec
// 2 (B) and the stores that keep them: connections, tracked repositories,
// deliveries and their queue (Store, Queue), the one rule for owner,
// repository and branch names (OwnerPattern, NamePattern, BranchPattern,
// stated with the same patterns in the document; a test holds them
// equal), and the lookups of the path's connection and repository that
// the route packages share. The secrets (a connection's tokens, a
// repository's webhook secret) are sealed at rest with platform/secretbox,
// bound to their record's id (TokenLabel, RefreshLabel, SecretLabel).
//
// The feature is split by idea below it:
//
//   - hostapi: the code host's REST API and OAuth token endpoint;
//   - connection: connections (PAT, OAuth) and their tokens;
//   - tracking: tracked repositories, their webhook and deliveries;
//   - automation: branch protection, check runs and PR comments;
//   - webhook: the delivery endpoint and the Processor of its queue;
//   - monitorfile: a repository's .monitor.yml and its globs.
//
// It imports identity, the platform and the store errors; it must not
// import the event log, the analytical store, an engine or another API
// package.
package codehost
