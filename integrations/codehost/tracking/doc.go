// Package tracking serves the repositories of a connection: the host's
// listing (GET /codehost/connections/{id}/repositories) and the tracked
// ones (POST /codehost/repositories/track, GET, PATCH and DELETE
// /codehost/repositories/{id}), the webhook setup that creates the
// repository's hook with a new sealed secret (POST .../{id}/webhook,
// posting to DeliveryURL), and the deliveries with what processing made
// of them (GET .../{id}/deliveries). An update is conditional on the
// revision read, so a PATCH and a webhook setup never lose each other's
// writes.
//
// It imports codehost, hostapi, connection, identity, the platform and
// the store errors.
package tracking
