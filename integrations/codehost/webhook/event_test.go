package webhook

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/vigilhq/vigil/integrations/codehost"
)

// TestEventRefs: a push is processed only to a tracked branch that still
// exists, a create only for a tag and a release only when published, each
// when the repository tracks it; the reason says why not, and the ref is
// named either way.
func TestEventRefs(t *testing.T) {
	repo := codehost.Repository{TrackedBranches: []string{"main"}, TrackTags: true}
	f := func(kind, payload string, repo codehost.Repository, ref, skipped string) {
		t.Helper()
		var e event
		if err := json.Unmarshal([]byte(payload), &e); err != nil {
			t.Fatal(err)
		}
		var gotRef, gotSkipped string
		if kind == "push" {
			gotRef, gotSkipped = e.pushed(repo)
		} else {
			gotRef, gotSkipped = e.tagged(kind, repo)
		}
		if gotRef != ref || gotSkipped != skipped {
			t.Errorf("%s %s: got ref %q skipped %q, want %q and %q", kind, payload, gotRef, gotSkipped, ref, skipped)
		}
	}
	f("push", `{"ref":"refs/heads/main"}`, repo, "main", "")
	f("push", `{"ref":"refs/heads/dev"}`, repo, "dev", "branch dev is not tracked")
	f("push", `{"ref":"refs/heads/dev"}`, codehost.Repository{}, "dev", "")
	f("push", `{"ref":"refs/heads/main","deleted":true}`, repo, "main", "the branch was deleted")
	f("push", `{"ref":"refs/tags/v1"}`, repo, "refs/tags/v1", "a push to refs/tags/v1, not to a branch")
	f("create", `{"ref":"v1","ref_type":"tag"}`, repo, "v1", "")
	f("create", `{"ref":"v1","ref_type":"tag"}`, codehost.Repository{}, "v1", "tags are not tracked")
	f("create", `{"ref":"dev","ref_type":"branch"}`, repo, "dev", "a branch was created, not a tag")
	f("create", `{"ref":"","ref_type":"tag"}`, repo, "", "the event names no tag")
	f("release", `{"action":"published","release":{"tag_name":"v2"}}`, codehost.Repository{TrackReleases: true}, "v2", "")
	f("release", `{"action":"created","release":{"tag_name":"v2"}}`, codehost.Repository{TrackReleases: true}, "v2", "release created, not published")
	f("release", `{"action":"published","release":{"tag_name":"v2"}}`, repo, "v2", "releases are not tracked")
}

// TestEventChanged: the files a push's commits added or modified, each
// once, in the order they first appear.
func TestEventChanged(t *testing.T) {
	var e event
	if err := json.Unmarshal([]byte(`{"commits":[{"added":["a.pkl","b.pkl"],"modified":["c.pkl"]},
		{"added":["d.pkl"],"modified":["a.pkl","c.pkl"]}]}`), &e); err != nil {
		t.Fatal(err)
	}
	if got, want := e.changed(), []string{"a.pkl", "b.pkl", "c.pkl", "d.pkl"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
