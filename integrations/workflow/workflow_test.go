package workflow

import (
	"testing"
	"time"
)

func TestKind(t *testing.T) {
	for typ, want := range map[string]string{
		"n8n-nodes-base.openAi":                 KindAI,
		"n8n-nodes-base.openAiChat":             KindAI,
		"other-prefix.openAi":                   KindAI,
		"@n8n/n8n-nodes-langchain.agent":        KindAI, // "langchain" contains "ai"
		"n8n-nodes-base.emailSend":              KindAI, // contains "ai", as the spec writes the rule
		"n8n-nodes-base.webhook":                KindUtility,
		"n8n-nodes-base.httpRequest":            KindUtility,
		"@n8n/n8n-nodes-langchain.lmChatOpenAi": KindAI,
		"custom.aiSummarizer":                   KindAI,
	} {
		if got := Kind(typ); got != want {
			t.Errorf("Kind(%q): got %s, want %s", typ, got, want)
		}
	}
}

func TestState(t *testing.T) {
	end := time.Now()
	f := func(status string, finished *time.Time, want string) {
		t.Helper()
		if got := State(status, finished); got != want {
			t.Errorf("State(%s, finished %v): got %s, want %s", status, finished != nil, got, want)
		}
	}
	f("running", nil, StateRunning)
	f("running", &end, StateRunning)
	f("success", &end, StateCompleted)
	f("error", &end, StateFailed)
	f("success", nil, StateRunning)
	f("error", nil, StateRunning)
}

func TestReplaces(t *testing.T) {
	for _, c := range []struct {
		prev, next string
		want       bool
	}{
		{StateRunning, StateRunning, true},
		{StateRunning, StateCompleted, true},
		{StateCompleted, StateFailed, true},
		{StateCompleted, StateRunning, false},
		{StateFailed, StateRunning, false},
	} {
		if got := Replaces(c.prev, c.next); got != c.want {
			t.Errorf("Replaces(%s, %s): got %v, want %v", c.prev, c.next, got, c.want)
		}
	}
}
