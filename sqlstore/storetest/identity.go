package storetest

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/store"
)

var identityTests = []test{
	{"Bootstrap/Once", testBootstrapOnce},
	{"Bootstrap/Concurrent", testBootstrapConcurrent},
	{"Secret/FirstValueWins", testSecret},
	{"Secret/Concurrent", testSecretConcurrent},
	{"Secret/Replace", testReplaceSecret},
	{"Users/CreateAndRead", testUserCreateAndRead},
	{"Users/Duplicate", testUserDuplicate},
	{"Users/Pagination", testUserPagination},
	{"Users/SetUserRole", testSetUserRole},
	{"Users/LastAdmin", testLastAdmin},
	{"Roles/CreateAndRead", testRoleCreateAndRead},
	{"Roles/Duplicate", testRoleDuplicate},
	{"Roles/BuiltInsFirst", testRolesOrder},
	{"Roles/Delete", testDeleteRole},
	{"APIKeys/CreateAndRead", testKeyCreateAndRead},
	{"APIKeys/List", testKeyList},
	{"APIKeys/Revoke", testKeyRevoke},
	{"APIKeys/RevokeOtherOrg", testKeyRevokeOtherOrg},
	{"APIKeys/Touch", testKeyTouch},
	{"APIKeys/DuplicateHash", testKeyDuplicateHash},
}

// bootstrapArgs returns what identity.Bootstrap passes to the store.
func bootstrapArgs(username string) (identity.Organization, []identity.Role, identity.User) {
	o := identity.Organization{ID: newID(), Name: "default", CreatedAt: at(0)}
	return o, builtInRoles(o.ID), newUser(o.ID, username, identity.RoleAdmin, at(0))
}

// userCount returns the number of users of the organization.
func userCount(t *testing.T, s Store, orgID string) int64 {
	t.Helper()
	_, total, err := s.Users(ctx(t), orgID, 0, 100)
	must(t, err, "Users")
	return total
}

func roleNames(roles []identity.Role) []string {
	out := []string{}
	for _, r := range roles {
		out = append(out, r.Name)
	}
	return out
}

func testBootstrapOnce(t *testing.T, s Store) {
	o, roles, admin := bootstrapArgs("root")
	created, err := s.Bootstrap(ctx(t), o, roles, admin)
	must(t, err, "first Bootstrap")
	if !created {
		t.Fatalf("first Bootstrap: got created=false, want true")
	}
	got, err := s.User(ctx(t), o.ID, admin.ID)
	must(t, err, "User(admin)")
	equal(t, "User(admin)", got, storedUser(admin))
	got, err = s.UserByUsername(ctx(t), "root")
	must(t, err, "UserByUsername(root)")
	equal(t, "UserByUsername(root)", got, storedUser(admin))
	rs, err := s.Roles(ctx(t), o.ID)
	must(t, err, "Roles")
	want := make([]identity.Role, len(roles))
	for i, r := range roles {
		want[i] = storedRole(r)
	}
	equal(t, "Roles after Bootstrap", rs, want)
	if n := userCount(t, s, o.ID); n != 1 {
		t.Errorf("users after Bootstrap: got %d, want 1", n)
	}

	o2, roles2, admin2 := bootstrapArgs("root2")
	created, err = s.Bootstrap(ctx(t), o2, roles2, admin2)
	must(t, err, "second Bootstrap")
	if created {
		t.Errorf("second Bootstrap: got created=true, want false")
	}
	if n := userCount(t, s, o.ID); n != 1 {
		t.Errorf("users of the first organization after a second Bootstrap: got %d, want 1", n)
	}
	if n := userCount(t, s, o2.ID); n != 0 {
		t.Errorf("users of the second organization after a second Bootstrap: got %d, want 0", n)
	}
	_, err = s.UserByUsername(ctx(t), "root2")
	wantErr(t, err, store.ErrNotFound, "UserByUsername of the second admin")
	rs, err = s.Roles(ctx(t), o2.ID)
	must(t, err, "Roles of the second organization")
	if len(rs) != 0 {
		t.Errorf("roles of the second organization: got %v, want none", roleNames(rs))
	}
}

func testBootstrapConcurrent(t *testing.T, s Store) {
	const n = 8
	type args struct {
		org   identity.Organization
		roles []identity.Role
		admin identity.User
	}
	var a [n]args
	for i := range a {
		a[i].org, a[i].roles, a[i].admin = bootstrapArgs(fmt.Sprintf("root%d", i))
	}
	var created [n]bool
	var wins atomic.Int32
	errs := parallel(n, func(i int) error {
		c, err := s.Bootstrap(ctx(t), a[i].org, a[i].roles, a[i].admin)
		if c {
			wins.Add(1)
			created[i] = true
		}
		return err
	})
	for i, err := range errs {
		must(t, err, fmt.Sprintf("Bootstrap %d", i))
	}
	if w := wins.Load(); w != 1 {
		t.Fatalf("Bootstraps reporting created: got %d, want 1", w)
	}
	admins := 0
	for i := range a {
		_, err := s.UserByUsername(ctx(t), a[i].admin.Username)
		switch {
		case err == nil:
			admins++
			if !created[i] {
				t.Errorf("admin %d exists but its Bootstrap reported created=false", i)
			}
		case !created[i]:
			wantErr(t, err, store.ErrNotFound, fmt.Sprintf("UserByUsername(admin %d)", i))
		default:
			t.Errorf("UserByUsername(admin %d) whose Bootstrap reported created=true: got error %v, want nil", i, err)
		}
		want := int64(0)
		if created[i] {
			want = 1
		}
		if got := userCount(t, s, a[i].org.ID); got != want {
			t.Errorf("users of organization %d: got %d, want %d", i, got, want)
		}
	}
	if admins != 1 {
		t.Errorf("admins after %d concurrent Bootstraps: got %d, want 1", n, admins)
	}
}

func testSecret(t *testing.T, s Store) {
	f := func(name, value, want string) {
		t.Helper()
		got, err := s.Secret(ctx(t), name, value)
		must(t, err, fmt.Sprintf("Secret(%q, %q)", name, value))
		if got != want {
			t.Errorf("Secret(%q, %q): got %q, want %q", name, value, got, want)
		}
	}
	f("jwt_secret", "first", "first")
	f("jwt_secret", "second", "first")
	f("jwt_secret", "", "first")
	f("other", "third", "third")
	f("jwt_secret", "fourth", "first")
}

// testReplaceSecret: ReplaceSecret swaps only the value it was shown.
func testReplaceSecret(t *testing.T, s Store) {
	f := func(old, value string, want bool) {
		t.Helper()
		got, err := s.ReplaceSecret(ctx(t), "jwt_secret", old, value)
		must(t, err, fmt.Sprintf("ReplaceSecret(%q, %q)", old, value))
		if got != want {
			t.Errorf("ReplaceSecret(%q, %q): got %v, want %v", old, value, got, want)
		}
	}
	f("", "none yet", false)
	_, err := s.Secret(ctx(t), "jwt_secret", "first")
	must(t, err, "Secret")
	f("stale", "second", false)
	f("first", "second", true)
	f("first", "third", false)
	got, err := s.Secret(ctx(t), "jwt_secret", "ignored")
	must(t, err, "Secret")
	if got != "second" {
		t.Errorf("Secret after ReplaceSecret: got %q, want %q", got, "second")
	}
}

func testSecretConcurrent(t *testing.T, s Store) {
	const n = 8
	var got [n]string
	errs := parallel(n, func(i int) error {
		var err error
		got[i], err = s.Secret(ctx(t), "jwt_secret", fmt.Sprintf("value-%d", i))
		return err
	})
	for i, err := range errs {
		must(t, err, fmt.Sprintf("Secret %d", i))
	}
	for i := range got {
		if got[i] != got[0] {
			t.Errorf("concurrent Secret %d: got %q, want %q (what Secret 0 got)", i, got[i], got[0])
		}
	}
	if !strings.HasPrefix(got[0], "value-") {
		t.Errorf("concurrent Secret: got %q, want one of the values passed", got[0])
	}
}

func testUserCreateAndRead(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	u := newUser(a.ID, "alice", identity.RoleEditor, at(10))
	u.Active = false
	must(t, s.CreateUser(ctx(t), u), "CreateUser")

	got, err := s.User(ctx(t), a.ID, u.ID)
	must(t, err, "User")
	equal(t, "User", got, storedUser(u))
	checkUTC(t, "User", &got.CreatedAt, &got.UpdatedAt)
	got, err = s.UserByUsername(ctx(t), "alice")
	must(t, err, "UserByUsername")
	equal(t, "UserByUsername", got, storedUser(u))

	_, err = s.User(ctx(t), b.ID, u.ID)
	wantErr(t, err, store.ErrNotFound, "User of another organization")
	_, err = s.User(ctx(t), a.ID, newID())
	wantErr(t, err, store.ErrNotFound, "User with an unknown id")
	_, err = s.UserByUsername(ctx(t), "nobody")
	wantErr(t, err, store.ErrNotFound, "UserByUsername of an unknown user")
	_, err = s.UserByUsername(ctx(t), "ALICE")
	wantErr(t, err, store.ErrNotFound, "UserByUsername is exact: ALICE")
}

func testUserDuplicate(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	u := newUser(a.ID, "alice", identity.RoleViewer, at(10))
	must(t, s.CreateUser(ctx(t), u), "CreateUser")

	f := func(what string, u identity.User) {
		t.Helper()
		wantErr(t, s.CreateUser(ctx(t), u), store.ErrConflict, what)
	}
	f("same username, same organization", newUser(a.ID, "alice", identity.RoleViewer, at(11)))
	f("same username, another organization", newUser(b.ID, "alice", identity.RoleViewer, at(11)))
	dupID := newUser(a.ID, "alice2", identity.RoleViewer, at(11))
	dupID.ID = u.ID
	f("same id", dupID)

	if n := userCount(t, s, a.ID); n != 2 {
		t.Errorf("users of the first organization: got %d, want 2 (admin and alice)", n)
	}
	if n := userCount(t, s, b.ID); n != 1 {
		t.Errorf("users of the second organization: got %d, want 1 (admin)", n)
	}
	got, err := s.UserByUsername(ctx(t), "alice")
	must(t, err, "UserByUsername")
	equal(t, "alice after the conflicts", got, storedUser(u))
}

func testUserPagination(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	all := []string{a.Admin.Username}
	for i := 1; i <= 4; i++ {
		u := newUser(a.ID, fmt.Sprintf("user%d", i), identity.RoleViewer, at(i))
		must(t, s.CreateUser(ctx(t), u), "CreateUser")
		all = append(all, u.Username)
	}
	must(t, s.CreateUser(ctx(t), newUser(b.ID, "stranger", identity.RoleViewer, at(1))), "CreateUser")

	f := func(offset, limit int, want ...string) {
		t.Helper()
		users, total, err := s.Users(ctx(t), a.ID, offset, limit)
		must(t, err, fmt.Sprintf("Users(offset %d, limit %d)", offset, limit))
		got := []string{}
		for _, u := range users {
			got = append(got, u.Username)
			if u.OrgID != a.ID {
				t.Errorf("Users(offset %d, limit %d): got user %s of organization %s, want %s", offset, limit, u.Username, u.OrgID, a.ID)
			}
		}
		if want == nil {
			want = []string{}
		}
		if !slices.Equal(got, want) {
			t.Errorf("Users(offset %d, limit %d): got %v, want %v", offset, limit, got, want)
		}
		if total != 5 {
			t.Errorf("Users(offset %d, limit %d): got total %d, want 5", offset, limit, total)
		}
	}
	f(0, 100, all...)
	f(0, 2, all[0], all[1])
	f(2, 2, all[2], all[3])
	f(4, 2, all[4])
	f(5, 2)
	f(100, 10)
	f(1, 3, all[1:4]...)

	users, total, err := s.Users(ctx(t), newID(), 0, 10)
	must(t, err, "Users of an unknown organization")
	if total != 0 || len(users) != 0 {
		t.Errorf("Users of an unknown organization: got %d users, total %d, want 0, 0", len(users), total)
	}
}

func testSetUserRole(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	u := newUser(a.ID, "alice", identity.RoleViewer, at(1))
	must(t, s.CreateUser(ctx(t), u), "CreateUser")

	got, err := s.SetUserRole(ctx(t), a.ID, u.ID, identity.RoleEditor, at(100))
	must(t, err, "SetUserRole")
	want := u
	want.Role, want.UpdatedAt = identity.RoleEditor, at(100)
	want = storedUser(want)
	equal(t, "SetUserRole result", got, want)
	got, err = s.User(ctx(t), a.ID, u.ID)
	must(t, err, "User")
	equal(t, "User after SetUserRole", got, want)

	_, err = s.SetUserRole(ctx(t), b.ID, u.ID, identity.RoleAdmin, at(200))
	wantErr(t, err, store.ErrNotFound, "SetUserRole on another organization's user")
	got, err = s.User(ctx(t), a.ID, u.ID)
	must(t, err, "User")
	equal(t, "User after SetUserRole from another organization", got, want)

	_, err = s.SetUserRole(ctx(t), a.ID, newID(), identity.RoleAdmin, at(200))
	wantErr(t, err, store.ErrNotFound, "SetUserRole on an unknown user")
}

// testLastAdmin: neither a role change nor a deactivation leaves an
// organization without an active admin, even when two race.
func testLastAdmin(t *testing.T, s Store) {
	a := newOrg(t, s)
	second := newUser(a.ID, "second-admin", identity.RoleAdmin, at(1))
	must(t, s.CreateUser(ctx(t), second), "CreateUser")

	_, err := s.SetUserRole(ctx(t), a.ID, a.Admin.ID, identity.RoleAdmin, at(2))
	must(t, err, "SetUserRole admin to admin")
	must(t, s.DeactivateUser(ctx(t), a.ID, second.ID, at(3)), "DeactivateUser of one of two admins")
	got, err := s.User(ctx(t), a.ID, second.ID)
	must(t, err, "User")
	if got.Active || !got.UpdatedAt.Equal(at(3).Truncate(time.Microsecond)) {
		t.Errorf("User after DeactivateUser: got active %v updated %v, want inactive at %v", got.Active, got.UpdatedAt, at(3))
	}
	_, err = s.SetUserRole(ctx(t), a.ID, a.Admin.ID, identity.RoleViewer, at(4))
	wantErr(t, err, store.ErrConflict, "SetUserRole demoting the last active admin")
	wantErr(t, s.DeactivateUser(ctx(t), a.ID, a.Admin.ID, at(4)), store.ErrConflict, "DeactivateUser of the last active admin")
	wantErr(t, s.DeactivateUser(ctx(t), newOrg(t, s).ID, a.Admin.ID, at(4)), store.ErrNotFound, "DeactivateUser from another organization")
	if got, _ := s.User(ctx(t), a.ID, a.Admin.ID); !got.Active || got.Role != identity.RoleAdmin {
		t.Errorf("last admin after refused changes: got active %v role %s, want an active admin", got.Active, got.Role)
	}

	// Two admins demoting each other at once: one wins, one is refused.
	b := newOrg(t, s)
	other := newUser(b.ID, "other-admin", identity.RoleAdmin, at(1))
	must(t, s.CreateUser(ctx(t), other), "CreateUser")
	errs := make(chan error, 2)
	for _, id := range []string{b.Admin.ID, other.ID} {
		go func() {
			_, err := s.SetUserRole(ctx(t), b.ID, id, identity.RoleViewer, at(5))
			errs <- err
		}()
	}
	var refused int
	for range 2 {
		if err := <-errs; err != nil {
			wantErr(t, err, store.ErrConflict, "concurrent demotion")
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("concurrent demotions of two admins: got %d refused, want 1", refused)
	}
}

func newRole(orgID, name string, created int) identity.Role {
	return identity.Role{ID: newID(), OrgID: orgID, Name: name, Description: "the " + name + " role",
		Permissions: []string{"models:read", "alerts:write"}, CreatedAt: at(created)}
}

func testRoleCreateAndRead(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	r := newRole(a.ID, "ops", 5)
	must(t, s.CreateRole(ctx(t), r), "CreateRole")
	empty := newRole(a.ID, "nothing", 6)
	empty.Permissions = []string{}
	must(t, s.CreateRole(ctx(t), empty), "CreateRole with no permissions")

	got, err := s.Role(ctx(t), a.ID, r.ID)
	must(t, err, "Role")
	equal(t, "Role", got, storedRole(r))
	checkUTC(t, "Role", &got.CreatedAt)
	got, err = s.RoleByName(ctx(t), a.ID, "ops")
	must(t, err, "RoleByName")
	equal(t, "RoleByName", got, storedRole(r))
	got, err = s.RoleByName(ctx(t), a.ID, "nothing")
	must(t, err, "RoleByName(nothing)")
	equal(t, "role with no permissions", got, storedRole(empty))

	builtIn, err := s.RoleByName(ctx(t), a.ID, identity.RoleAdmin)
	must(t, err, "RoleByName(admin)")
	equal(t, "built-in admin role", builtIn, storedRole(a.Roles[0]))

	f := func(what string, err error) {
		t.Helper()
		wantErr(t, err, store.ErrNotFound, what)
	}
	_, err = s.Role(ctx(t), b.ID, r.ID)
	f("Role of another organization", err)
	_, err = s.RoleByName(ctx(t), b.ID, "ops")
	f("RoleByName of another organization", err)
	_, err = s.Role(ctx(t), a.ID, newID())
	f("Role with an unknown id", err)
	_, err = s.RoleByName(ctx(t), a.ID, "unknown")
	f("RoleByName with an unknown name", err)
	_, err = s.Role(ctx(t), b.ID, a.Roles[0].ID)
	f("built-in Role of another organization", err)
}

func testRoleDuplicate(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	r := newRole(a.ID, "ops", 5)
	must(t, s.CreateRole(ctx(t), r), "CreateRole")
	wantErr(t, s.CreateRole(ctx(t), newRole(a.ID, "ops", 6)), store.ErrConflict, "CreateRole with a taken name")
	wantErr(t, s.CreateRole(ctx(t), newRole(a.ID, identity.RoleAdmin, 6)), store.ErrConflict, "CreateRole named like a built-in")
	dupID := newRole(a.ID, "ops2", 6)
	dupID.ID = r.ID
	wantErr(t, s.CreateRole(ctx(t), dupID), store.ErrConflict, "CreateRole with a taken id")

	other := newRole(b.ID, "ops", 7)
	must(t, s.CreateRole(ctx(t), other), "CreateRole with the same name in another organization")
	got, err := s.RoleByName(ctx(t), b.ID, "ops")
	must(t, err, "RoleByName in the other organization")
	equal(t, "the other organization's ops", got, storedRole(other))
	got, err = s.RoleByName(ctx(t), a.ID, "ops")
	must(t, err, "RoleByName")
	equal(t, "the first organization's ops", got, storedRole(r))
}

func testRolesOrder(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	for i, name := range []string{"zeta", "alpha", "mid"} {
		must(t, s.CreateRole(ctx(t), newRole(a.ID, name, i)), "CreateRole "+name)
	}
	must(t, s.CreateRole(ctx(t), newRole(b.ID, "beta", 1)), "CreateRole beta")

	f := func(orgID string, want ...string) {
		t.Helper()
		rs, err := s.Roles(ctx(t), orgID)
		must(t, err, "Roles")
		if got := roleNames(rs); !slices.Equal(got, want) {
			t.Errorf("Roles: got %v, want %v", got, want)
		}
		for i, r := range rs {
			if r.OrgID != orgID {
				t.Errorf("Roles: role %s of organization %s, want %s", r.Name, r.OrgID, orgID)
			}
			if wantBuiltIn := i < 3; r.BuiltIn != wantBuiltIn {
				t.Errorf("Roles: role %s: got BuiltIn %v, want %v", r.Name, r.BuiltIn, wantBuiltIn)
			}
		}
	}
	f(a.ID, identity.RoleAdmin, identity.RoleEditor, identity.RoleViewer, "alpha", "mid", "zeta")
	f(b.ID, identity.RoleAdmin, identity.RoleEditor, identity.RoleViewer, "beta")
	rs, err := s.Roles(ctx(t), newID())
	must(t, err, "Roles of an unknown organization")
	if len(rs) != 0 {
		t.Errorf("Roles of an unknown organization: got %v, want none", roleNames(rs))
	}
}

// testDeleteRole: built-in roles are never deleted (the store reports
// store.ErrNotFound, as it only deletes custom roles; identity's handler
// refuses built-ins before asking), a role that users hold reports
// store.ErrConflict, and another organization's role store.ErrNotFound.
func testDeleteRole(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	unused := newRole(a.ID, "unused", 1)
	held := newRole(a.ID, "held", 2)
	// b has a user holding a role named "shared"; a's "shared" is unused
	// in a and so deletable.
	shared := newRole(a.ID, "shared", 3)
	for _, r := range []identity.Role{unused, held, shared, newRole(b.ID, "shared", 3)} {
		must(t, s.CreateRole(ctx(t), r), "CreateRole "+r.Name)
	}
	must(t, s.CreateUser(ctx(t), newUser(a.ID, "holder", "held", at(5))), "CreateUser holder")
	must(t, s.CreateUser(ctx(t), newUser(b.ID, "b-holder", "shared", at(5))), "CreateUser b-holder")

	exists := func(r identity.Role, want bool) {
		t.Helper()
		_, err := s.Role(ctx(t), r.OrgID, r.ID)
		switch {
		case want && err != nil:
			t.Errorf("role %s after DeleteRole: got error %v, want it to exist", r.Name, err)
		case !want:
			wantErr(t, err, store.ErrNotFound, "Role "+r.Name+" after DeleteRole")
		}
	}
	f := func(what, orgID string, r identity.Role, want error, stays bool) {
		t.Helper()
		err := s.DeleteRole(ctx(t), orgID, r.ID)
		if want == nil {
			must(t, err, what)
		} else {
			wantErr(t, err, want, what)
		}
		exists(r, stays)
	}
	f("DeleteRole from another organization", b.ID, unused, store.ErrNotFound, true)
	f("DeleteRole of a built-in role", a.ID, a.Roles[0], store.ErrNotFound, true)
	f("DeleteRole of a built-in role nobody holds", a.ID, a.Roles[2], store.ErrNotFound, true)
	f("DeleteRole of a held role", a.ID, held, store.ErrConflict, true)
	f("DeleteRole of a role held in another organization only", a.ID, shared, nil, false)
	f("DeleteRole of an unused role", a.ID, unused, nil, false)
	f("DeleteRole twice", a.ID, unused, store.ErrNotFound, false)
	must(t, s.DeleteRole(ctx(t), a.ID, newRoleID(t, s, a.ID, "late")), "DeleteRole of a new role")

	// Once nobody holds it, the held role can go.
	u, err := s.UserByUsername(ctx(t), "holder")
	must(t, err, "UserByUsername(holder)")
	_, err = s.SetUserRole(ctx(t), a.ID, u.ID, identity.RoleViewer, at(6))
	must(t, err, "SetUserRole")
	f("DeleteRole of a role no longer held", a.ID, held, nil, false)

	rs, err := s.Roles(ctx(t), a.ID)
	must(t, err, "Roles")
	if got, want := roleNames(rs), []string{identity.RoleAdmin, identity.RoleEditor, identity.RoleViewer}; !slices.Equal(got, want) {
		t.Errorf("Roles after the deletions: got %v, want %v", got, want)
	}
	rs, err = s.Roles(ctx(t), b.ID)
	must(t, err, "Roles")
	if got, want := roleNames(rs), []string{identity.RoleAdmin, identity.RoleEditor, identity.RoleViewer, "shared"}; !slices.Equal(got, want) {
		t.Errorf("Roles of the other organization: got %v, want %v", got, want)
	}
}

func newRoleID(t *testing.T, s Store, orgID, name string) string {
	t.Helper()
	r := newRole(orgID, name, 9)
	must(t, s.CreateRole(ctx(t), r), "CreateRole "+name)
	return r.ID
}

func newKey(orgID, userID, name string, created int) identity.APIKey {
	id := newID()
	return identity.APIKey{ID: id, OrgID: orgID, UserID: userID, Name: name, Hint: "vg_…" + id[:4],
		Hash: "sha256-" + id, Scopes: []string{"ingest:write", "models:read"}, CreatedAt: at(created)}
}

func keyNames(keys []identity.APIKey) []string {
	out := []string{}
	for _, k := range keys {
		out = append(out, k.Name)
	}
	return out
}

func testKeyCreateAndRead(t *testing.T, s Store) {
	a := newOrg(t, s)
	full := newKey(a.ID, a.Admin.ID, "full", 1)
	full.LastUsedAt, full.ExpiresAt = ptr(at(2).Add(987*time.Nanosecond)), ptr(at(3600))
	bare := newKey(a.ID, a.Admin.ID, "bare", 2)
	bare.Scopes = nil
	empty := newKey(a.ID, a.Admin.ID, "empty", 3)
	empty.Scopes = []string{}
	for _, k := range []identity.APIKey{full, bare, empty} {
		must(t, s.CreateAPIKey(ctx(t), k), "CreateAPIKey "+k.Name)
		got, err := s.APIKeyByHash(ctx(t), k.Hash)
		must(t, err, "APIKeyByHash "+k.Name)
		equal(t, "APIKeyByHash "+k.Name, got, storedKey(k))
		checkUTC(t, "APIKeyByHash "+k.Name, &got.CreatedAt, got.LastUsedAt, got.ExpiresAt, got.RevokedAt)
	}
	_, err := s.APIKeyByHash(ctx(t), "sha256-unknown")
	wantErr(t, err, store.ErrNotFound, "APIKeyByHash of an unknown hash")
}

func testKeyList(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	k1, k2, k3 := newKey(a.ID, a.Admin.ID, "k1", 1), newKey(a.ID, a.Admin.ID, "k2", 2), newKey(a.ID, a.Admin.ID, "k3", 3)
	kb := newKey(b.ID, b.Admin.ID, "kb", 1)
	// Created out of order: the list is oldest first.
	for _, k := range []identity.APIKey{k3, kb, k1, k2} {
		must(t, s.CreateAPIKey(ctx(t), k), "CreateAPIKey "+k.Name)
	}
	f := func(orgID string, want ...string) {
		t.Helper()
		keys, err := s.APIKeys(ctx(t), orgID)
		must(t, err, "APIKeys")
		if got := keyNames(keys); !slices.Equal(got, want) {
			t.Errorf("APIKeys: got %v, want %v", got, want)
		}
	}
	f(a.ID, "k1", "k2", "k3")
	f(b.ID, "kb")
	must(t, s.RevokeAPIKey(ctx(t), a.ID, k2.ID, at(10)), "RevokeAPIKey k2")
	f(a.ID, "k1", "k3")
	f(b.ID, "kb")
	f(newID())

	keys, err := s.APIKeys(ctx(t), a.ID)
	must(t, err, "APIKeys")
	equal(t, "APIKeys", keys, []identity.APIKey{storedKey(k1), storedKey(k3)})
}

func testKeyRevoke(t *testing.T, s Store) {
	a := newOrg(t, s)
	k := newKey(a.ID, a.Admin.ID, "k", 1)
	must(t, s.CreateAPIKey(ctx(t), k), "CreateAPIKey")
	revoked := at(50).Add(4321 * time.Nanosecond)
	must(t, s.RevokeAPIKey(ctx(t), a.ID, k.ID, revoked), "RevokeAPIKey")
	got, err := s.APIKeyByHash(ctx(t), k.Hash)
	must(t, err, "APIKeyByHash after RevokeAPIKey")
	want := k
	want.RevokedAt = &revoked
	equal(t, "APIKeyByHash after RevokeAPIKey", got, storedKey(want))
	checkUTC(t, "RevokedAt", got.RevokedAt)

	wantErr(t, s.RevokeAPIKey(ctx(t), a.ID, k.ID, at(60)), store.ErrNotFound, "second RevokeAPIKey")
	got, err = s.APIKeyByHash(ctx(t), k.Hash)
	must(t, err, "APIKeyByHash after the second RevokeAPIKey")
	equal(t, "RevokedAt after the second RevokeAPIKey", got.RevokedAt, storedPtr(&revoked))
	wantErr(t, s.RevokeAPIKey(ctx(t), a.ID, newID(), at(60)), store.ErrNotFound, "RevokeAPIKey of an unknown key")
}

func testKeyRevokeOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	k := newKey(a.ID, a.Admin.ID, "k", 1)
	must(t, s.CreateAPIKey(ctx(t), k), "CreateAPIKey")
	wantErr(t, s.RevokeAPIKey(ctx(t), b.ID, k.ID, at(50)), store.ErrNotFound, "RevokeAPIKey from another organization")
	got, err := s.APIKeyByHash(ctx(t), k.Hash)
	must(t, err, "APIKeyByHash")
	equal(t, "key after RevokeAPIKey from another organization", got, storedKey(k))
	keys, err := s.APIKeys(ctx(t), a.ID)
	must(t, err, "APIKeys")
	if names := keyNames(keys); !slices.Equal(names, []string{"k"}) {
		t.Errorf("APIKeys after RevokeAPIKey from another organization: got %v, want [k]", names)
	}
}

func testKeyTouch(t *testing.T, s Store) {
	a := newOrg(t, s)
	k := newKey(a.ID, a.Admin.ID, "k", 1)
	must(t, s.CreateAPIKey(ctx(t), k), "CreateAPIKey")
	f := func(used time.Time) {
		t.Helper()
		must(t, s.TouchAPIKey(ctx(t), k.ID, used), "TouchAPIKey")
		got, err := s.APIKeyByHash(ctx(t), k.Hash)
		must(t, err, "APIKeyByHash")
		want := k
		want.LastUsedAt = &used
		equal(t, "key after TouchAPIKey", got, storedKey(want))
		checkUTC(t, "LastUsedAt", got.LastUsedAt)
	}
	f(at(10).Add(999 * time.Nanosecond))
	f(at(20).Add(1001 * time.Nanosecond))
}

func testKeyDuplicateHash(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	k := newKey(a.ID, a.Admin.ID, "k", 1)
	must(t, s.CreateAPIKey(ctx(t), k), "CreateAPIKey")
	f := func(what string, k2 identity.APIKey) {
		t.Helper()
		wantErr(t, s.CreateAPIKey(ctx(t), k2), store.ErrConflict, what)
	}
	dup := newKey(a.ID, a.Admin.ID, "dup", 2)
	dup.Hash = k.Hash
	f("same hash", dup)
	dup.OrgID, dup.UserID = b.ID, b.Admin.ID
	f("same hash in another organization", dup)
	dupID := newKey(a.ID, a.Admin.ID, "dup-id", 2)
	dupID.ID = k.ID
	f("same id", dupID)

	got, err := s.APIKeyByHash(ctx(t), k.Hash)
	must(t, err, "APIKeyByHash")
	equal(t, "key after the conflicts", got, storedKey(k))
	for _, o := range []org{a, b} {
		keys, err := s.APIKeys(ctx(t), o.ID)
		must(t, err, "APIKeys")
		want := 0
		if o.ID == a.ID {
			want = 1
		}
		if len(keys) != want {
			t.Errorf("APIKeys after the conflicts: got %v, want %d keys", keyNames(keys), want)
		}
	}
}
