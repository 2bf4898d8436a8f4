package dashboard

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// DefaultInterval is how often the live channel pushes the figures.
const DefaultInterval = 5 * time.Second

// Close codes of the live channel beyond RFC 6455's: the token expired or
// stopped being valid (revoked key, deactivated user, role changed).
const (
	CloseTokenExpired = 4001
	CloseTokenInvalid = 4003
)

// Tokens authenticates the token the live channel is opened with, again
// at every push.
type Tokens interface {
	Token(ctx context.Context, token string) (*identity.Principal, error)
}

// Message is one message of the live channel, server to client, as JSON
// text frames: "statistics" (the figures of GET /dashboard/statistics) at
// once and then every interval, or "error" (then the server closes the
// channel when the token is no longer valid, or keeps it open and tries
// again at the next interval when the figures could not be read).
type Message struct {
	Type       string      `json:"type"`
	Sequence   int64       `json:"sequence"`
	SentAt     time.Time   `json:"sent_at"`
	Statistics *Statistics `json:"statistics,omitempty"`
	Error      *LiveError  `json:"error,omitempty"`
}

// LiveError is an error message's body: a code of the API's error
// envelope and what happened.
type LiveError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

var upgrader = websocket.FastHTTPUpgrader{
	HandshakeTimeout: 10 * time.Second,
	// The dashboard is served by the same binary; other origins may use
	// the channel with a token too (the token, not a cookie, authorizes).
	CheckOrigin: func(*fasthttp.RequestCtx) bool { return true },
}

// live answers GET /dashboard/ws?token=: the token (a login token or an API
// key with dashboard:read) is checked before the upgrade (401, 403, or 400
// for a request that is not a WebSocket upgrade), then at every push.
func (a *API) live(c *fiber.Ctx) error {
	token := c.Query("token")
	p, err := a.Tokens.Token(c.UserContext(), token)
	if err != nil {
		return err
	}
	if !p.Can("dashboard:read") {
		return web.Forbidden("dashboard:read")
	}
	if !websocket.FastHTTPIsWebSocketUpgrade(c.Context()) {
		return web.NewError(http.StatusBadRequest, web.CodeBadRequest,
			"this endpoint speaks WebSocket: send Connection: Upgrade and Upgrade: websocket")
	}
	interval := a.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	return upgrader.Upgrade(c.Context(), func(conn *websocket.Conn) {
		a.push(conn, token, p.OrgID, interval)
	})
}

// push sends the figures every interval until the client goes, the token
// stops being valid or the server stops.
func (a *API) push(conn *websocket.Conn, token, orgID string, interval time.Duration) {
	defer conn.Close()
	ctx, cancel := context.WithCancel(a.lifetime())
	defer cancel()
	// The client sends nothing the server needs; reading handles its
	// pings and notices its close.
	go func() {
		defer cancel()
		conn.SetReadLimit(4 << 10)
		for {
			if _, _, err := conn.NextReader(); err != nil {
				return
			}
		}
	}()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for seq := int64(1); ; seq++ {
		if code, msg, ok := a.stillValid(ctx, token, orgID); !ok {
			a.send(conn, Message{Type: "error", Sequence: seq, Error: &LiveError{Code: msg.Code, Message: msg.Message}})
			deadline := time.Now().Add(time.Second)
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, msg.Message), deadline)
			return
		}
		m := Message{Type: "statistics", Sequence: seq}
		if st, err := a.figures(ctx, orgID); err != nil {
			m = Message{Type: "error", Sequence: seq, Error: &LiveError{Code: web.CodeUnavailable,
				Message: "the figures could not be read; trying again at the next push"}}
		} else {
			m.Statistics = &st
		}
		if !a.send(conn, m) {
			return
		}
		select {
		case <-ctx.Done():
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "server stopping"),
				time.Now().Add(time.Second))
			return
		case <-tick.C:
		}
	}
}

// stillValid authenticates the token again: a close code and the reason
// when it no longer opens the organization's dashboard.
func (a *API) stillValid(ctx context.Context, token, orgID string) (int, LiveError, bool) {
	p, err := a.Tokens.Token(ctx, token)
	var e *web.Error
	switch {
	case errors.As(err, &e) && e.Code == web.CodeTokenExpired:
		return CloseTokenExpired, LiveError{web.CodeTokenExpired, e.Message}, false
	case errors.As(err, &e) && e.Status == http.StatusUnauthorized:
		return CloseTokenInvalid, LiveError{e.Code, e.Message}, false
	case err != nil: // the store is down: not the token's fault
		return 0, LiveError{}, true
	case p.OrgID != orgID || !p.Can("dashboard:read"):
		return CloseTokenInvalid, LiveError{web.CodeInsufficientPermissions, "the token no longer grants dashboard:read"}, false
	}
	return 0, LiveError{}, true
}

// send writes m within a second; false when the client is gone.
func (a *API) send(conn *websocket.Conn, m Message) bool {
	m.SentAt = a.Clock.Now().UTC()
	_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
	return conn.WriteJSON(m) == nil
}

// lifetime is the context of every live channel: cancelled once Run's
// context ends.
func (a *API) lifetime() context.Context {
	a.once.Do(func() { a.base, a.cancel = context.WithCancel(context.Background()) })
	return a.base
}

// Run closes every live channel (close code 1001, going away) once ctx
// ends, so that a stopping server does not wait on its dashboards.
func (a *API) Run(ctx context.Context) error {
	base := a.lifetime()
	<-ctx.Done()
	a.cancel()
	<-base.Done()
	return nil
}
