package hostapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/vigilhq/vigil/platform/web"
)

// Answer turns the host's errors about a token into the API's answers: a
// refused token is field's problem (422), a host that cannot answer a
// 503; other errors are returned as they are.
func Answer(err error, field string) error {
	switch {
	case errors.Is(err, ErrInvalidToken):
		return web.Invalid(field, "the code host refuses this token")
	case errors.Is(err, ErrHostUnavailable):
		return web.Unavailable("the code host did not answer; retry shortly", 30*time.Second, err)
	}
	return err
}

// RepoAnswer is Answer for calls about a repository: a repository the
// token cannot see is field's problem (404 without one), a token refused
// or lacking permission a 403, a spent rate limit a 503 asking to wait
// until it resets.
func RepoAnswer(err error, field string) error {
	var b *Busy
	switch {
	case errors.As(err, &b):
		return web.Unavailable("the code host's rate limit is spent; retry when it resets", max(b.Wait, time.Second), err)
	case errors.Is(err, ErrNoRepository) && field != "":
		return web.Invalid(field, "the code host has no such repository that this connection's token can see")
	case errors.Is(err, ErrNoRepository):
		return web.NotFound("repository on the code host")
	case errors.Is(err, ErrNoPermission):
		return web.NewError(http.StatusForbidden, web.CodeInsufficientPermissions,
			"the connection's token lacks permission for this repository on the code host (webhook setup needs admin access)")
	case errors.Is(err, ErrReauthorize):
		return web.NewError(http.StatusForbidden, web.CodeInsufficientPermissions,
			"the code host refused to refresh the connection's token: authorize the connection again")
	case errors.Is(err, ErrInvalidToken):
		return web.NewError(http.StatusForbidden, web.CodeInsufficientPermissions,
			"the code host refuses the connection's token; verify or reconnect it")
	}
	return Answer(err, field)
}
