package identity

import (
	"testing"

	"github.com/vigilhq/vigil/platform/web/webtest"
)

// TestDecodeSameAsStd holds web.DecodeBytes to encoding/json on this
// package's request types.
func TestDecodeSameAsStd(t *testing.T) {
	bodies := append(webtest.Bodies(),
		[]byte(`{"username":"ann","password":"secret-pass","email":"ann@example.com","full_name":"Ann","role":"admin"}`),
		[]byte(`{"name":"ci","scopes":["read","write"],"expires_in_days":null}`),
		[]byte(`{"name":"ci","scopes":"read","expires_in_days":1.5}`),
		[]byte(`{"name":"auditor","description":"reads","permissions":["models:read",7]}`),
		[]byte(`{"username":"ann","password":5}`),
		[]byte(`{"role":["admin"]}`))
	for _, body := range bodies {
		webtest.SameAsStd(t, body,
			func() any { return new(createUserRequest) },
			func() any { return new(createKeyRequest) },
			func() any { return new(loginRequest) },
			func() any { return new(registerRequest) },
			func() any { return new(createRoleRequest) },
			func() any { // setUserRole's
				return new(struct {
					Role string `json:"role"`
				})
			})
	}
}
