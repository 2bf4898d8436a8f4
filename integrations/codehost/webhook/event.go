package webhook

import (
	"slices"
	"strings"

	"github.com/vigilhq/vigil/integrations/codehost"
)

// event is the part of a push, release or create payload read.
type event struct {
	Ref     string `json:"ref"`
	RefType string `json:"ref_type"`
	After   string `json:"after"`
	Deleted bool   `json:"deleted"`
	Action  string `json:"action"`
	Commits []struct {
		Added    []string `json:"added"`
		Modified []string `json:"modified"`
	} `json:"commits"`
	Release struct {
		TagName string `json:"tag_name"`
	} `json:"release"`
}

// pushed is the branch a push is about (its ref when it is not a
// branch's) and, when the push is not processed, why: not to a branch,
// the branch deleted, or not tracked by repo.
func (e event) pushed(repo codehost.Repository) (branch, skipped string) {
	branch, isBranch := strings.CutPrefix(e.Ref, "refs/heads/")
	switch {
	case !isBranch:
		return branch, "a push to " + e.Ref + ", not to a branch"
	case e.Deleted:
		return branch, "the branch was deleted"
	case len(repo.TrackedBranches) > 0 && !slices.Contains(repo.TrackedBranches, branch):
		return branch, "branch " + branch + " is not tracked"
	}
	return branch, ""
}

// tagged is the tag a create or release event (kind) is about and, when
// the event is not processed, why: not a tag created, not a release
// published, not tracked by repo, or no tag named.
func (e event) tagged(kind string, repo codehost.Repository) (tag, skipped string) {
	tag = e.Release.TagName
	if kind == "create" {
		tag = e.Ref
	}
	switch {
	case kind == "create" && e.RefType != "tag":
		return tag, "a " + e.RefType + " was created, not a tag"
	case kind == "create" && !repo.TrackTags:
		return tag, "tags are not tracked"
	case kind == "release" && e.Action != "published":
		return tag, "release " + e.Action + ", not published"
	case kind == "release" && !repo.TrackReleases:
		return tag, "releases are not tracked"
	case tag == "":
		return tag, "the event names no tag"
	}
	return tag, ""
}

// changed lists the files a push's commits added or modified, each once,
// in the order they first appear.
func (e event) changed() []string {
	var files []string
	for _, c := range e.Commits {
		for _, f := range append(slices.Clone(c.Added), c.Modified...) {
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	return files
}
