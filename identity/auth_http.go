package identity

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// retryLogin is the Retry-After of a login that failed on a backend outage.
const retryLogin = 5 * time.Second

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type loginResponse struct {
	AccessToken string    `json:"access_token"`
	TokenType   string    `json:"token_type"`
	ExpiresIn   int       `json:"expires_in"`
	User        loginUser `json:"user"`
}

type loginUser struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Role     string `json:"role"`
}

// login checks a password and issues a 30-minute token. Failures are
// counted per client address and username (lockoutSubject): after a few,
// each further failure imposes a doubling wait, answered 429 with
// Retry-After. An unknown username costs the same hash and answers the
// same 401 as a wrong password, so login tells no one which names exist.
func (a *API) login(c *fiber.Ctx) error {
	var req loginRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	v.Required("username", req.Username)
	// Any characters make a password, spaces alone included (the policy
	// counts them): only an empty one is missing.
	if req.Password == "" {
		v.Add("password", "is required")
	}
	if err := v.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	username := strings.ToLower(req.Username)
	subject := lockoutSubject(c, username)
	wait, err := a.Lockout.Check(ctx, subject)
	if err != nil {
		return web.Unavailable("login is unavailable; retry shortly", retryLogin, err)
	}
	if wait > 0 {
		return tooMany("too many failed logins; wait before trying again", wait)
	}
	u, err := a.Store.UserByUsername(ctx, username)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	hash := u.PasswordHash
	if hash == "" {
		hash = dummyHash
	}
	ok, _ := CheckPassword(hash, req.Password)
	if !ok || u.ID == "" || !u.Active {
		wait, err := a.Lockout.Fail(ctx, subject)
		if err != nil {
			return web.Unavailable("login is unavailable; retry shortly", retryLogin, err)
		}
		e := web.Unauthenticated("invalid username or password")
		e.RetryAfter = wait
		return e
	}
	if err := a.Lockout.Succeed(ctx, subject); err != nil {
		return web.Unavailable("login is unavailable; retry shortly", retryLogin, err)
	}
	tok, err := a.Tokens.Issue(u)
	if err != nil {
		return err
	}
	return c.JSON(loginResponse{AccessToken: tok, TokenType: "bearer", ExpiresIn: int(TokenLifetime.Seconds()),
		User: loginUser{ID: u.ID, Username: u.Username, Role: u.Role}})
}

// lockoutSubject is what failed logins count against: the client address
// and the username together. One client's guesses at an account slow that
// client down, while the same user logging in from anywhere else is not
// held back, so nobody can lock the admin out from outside. The state
// lives in Redis when configured, else in the transactional store, so a
// restart does not reset it.
func lockoutSubject(c *fiber.Ctx, username string) string {
	return c.IP() + " " + username
}

// tooMany is the 429 of a client that must wait before trying again.
func tooMany(message string, wait time.Duration) error {
	e := web.NewError(http.StatusTooManyRequests, web.CodeRateLimitExceeded, message)
	e.RetryAfter = wait
	return e
}

type registerRequest struct {
	Username string `json:"username"`
	Email    string `json:"email"`
	Password string `json:"password"`
	FullName string `json:"full_name"`
	// OrganizationName names the new organization of an open sign-up.
	OrganizationName string `json:"organization_name"`
}

// register creates a user. With a bearer token of a caller who may manage
// users, the new user joins the caller's organization as a viewer. Without
// one, registration is open only when configured so, and then creates a new
// organization whose admin the new user becomes.
func (a *API) register(c *fiber.Ctx) error {
	var req registerRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	now := a.Clock.Now()
	u := User{ID: uuid.Must(uuid.NewV7()).String(), Username: req.Username, Email: req.Email,
		FullName: req.FullName, Active: true, CreatedAt: now, UpdatedAt: now}
	if c.Get(fiber.HeaderAuthorization) != "" {
		p, err := a.Authenticator.Authenticate(c)
		if err != nil {
			return err
		}
		if !p.Can("users:write") {
			return web.Forbidden("users:write")
		}
		if req.OrganizationName != "" {
			return web.Invalid("organization_name", "only an open sign-up without a token creates an organization")
		}
		u.OrgID, u.Role = p.OrgID, RoleViewer
		if err := a.newUser(c, &u, req.Password); err != nil {
			return err
		}
		return c.Status(http.StatusCreated).JSON(u)
	}
	if a.Registration != config.RegistrationOpen {
		return web.Unauthenticated("registration is closed: an administrator registers users (POST /auth/register or /users with an admin token)")
	}
	org := Organization{ID: uuid.Must(uuid.NewV7()).String(), Name: req.OrganizationName, CreatedAt: now}
	if org.Name == "" {
		org.Name = req.Username
	}
	u.OrgID, u.Role = org.ID, RoleAdmin
	var v web.Problems
	v.MaxLen("organization_name", req.OrganizationName, 200)
	validateUser(&v, &u, req.Password)
	if err := invalidUser(v); err != nil {
		return err
	}
	if err := hashInto(&u, req.Password); err != nil {
		return err
	}
	if err := a.claim(c, func() error { return a.Store.CreateOrganization(c.UserContext(), org, rolesFor(org.ID, now), u) }); err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(u)
}

// me returns the caller.
func (a *API) me(c *fiber.Ctx) error {
	p := FromCtx(c)
	u, err := a.Store.User(c.UserContext(), p.OrgID, p.UserID)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"user": u, "permissions": p.Permissions, "api_key_id": p.KeyID, "scopes": p.Scopes})
}

var usernamePattern = regexp.MustCompile(`^[A-Za-z0-9._@-]{3,64}$`)

// validateUser checks the fields a new user must have. Usernames are
// case-insensitive: they are kept in lower case.
func validateUser(v *web.Problems, u *User, password string) {
	u.Username = strings.ToLower(u.Username)
	if !usernamePattern.MatchString(u.Username) {
		v.Add("username", "must be 3-64 letters, digits or . _ @ -")
	}
	v.Required("email", u.Email)
	v.MaxLen("email", u.Email, 254)
	if u.Email != "" && !strings.Contains(u.Email, "@") {
		v.Add("email", "must be an email address")
	}
	v.MaxLen("full_name", u.FullName, 200)
	if problem := PasswordProblem(u.Username, password); problem != "" {
		v.Add("password", problem)
	}
}

// invalidUser returns v's 422, whose message states PasswordRule when the
// password is one of the problems.
func invalidUser(v web.Problems) error {
	err := v.Err()
	var e *web.Error
	if errors.As(err, &e) && v["password"] != nil {
		e.Message = "validation failed: " + PasswordRule
	}
	return err
}

// newUser validates, hashes and stores u in its organization.
func (a *API) newUser(c *fiber.Ctx, u *User, password string) error {
	var v web.Problems
	validateUser(&v, u, password)
	if err := invalidUser(v); err != nil {
		return err
	}
	if err := hashInto(u, password); err != nil {
		return err
	}
	return a.claim(c, func() error { return a.Store.CreateUser(c.UserContext(), *u) })
}

func hashInto(u *User, password string) error {
	h, err := HashPassword(password)
	u.PasswordHash = h
	return err
}

// claim stores a new account through create, the password already hashed
// so that a taken and a free name cost the same work, and answers a taken
// username 409. Usernames are global login names: a sign-up that hid the
// conflict would only move the question to login (register the name, then
// try to log in with it), so the answer stays honest and NameProbes bounds
// the asking instead: each client's attempts at taken names past the free
// ones cost a growing wait, answered 429 with Retry-After.
func (a *API) claim(c *fiber.Ctx, create func() error) error {
	ctx, subject := c.UserContext(), c.IP()
	if a.NameProbes != nil {
		wait, err := a.NameProbes.Check(ctx, subject)
		if err != nil {
			return web.Unavailable("registration is unavailable; retry shortly", retryLogin, err)
		}
		if wait > 0 {
			return tooMany("too many attempts at taken usernames; wait before trying again", wait)
		}
	}
	err := create()
	if !errors.Is(err, store.ErrConflict) {
		return err
	}
	e := web.Conflict("username is taken")
	if a.NameProbes != nil {
		if e.RetryAfter, err = a.NameProbes.Fail(ctx, subject); err != nil {
			return web.Unavailable("registration is unavailable; retry shortly", retryLogin, err)
		}
	}
	return e
}
