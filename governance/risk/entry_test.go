package risk

import "testing"

func TestTransitions(t *testing.T) {
	f := func(from, to Status, want bool) {
		t.Helper()
		if got := from.CanMove(to); got != want {
			t.Errorf("%s -> %s: got allowed %v, want %v", from, to, got, want)
		}
	}
	for _, s := range Statuses {
		f(s, s, false)
		if s != StatusClosed {
			f(s, StatusClosed, true)
		}
	}
	f(StatusIdentified, StatusAssessed, true)
	f(StatusIdentified, StatusMitigated, false)
	f(StatusAssessed, StatusMitigationPlanned, true)
	f(StatusMitigationPlanned, StatusMitigated, true)
	f(StatusMitigated, StatusMitigationPlanned, true)
	f(StatusMitigated, StatusIdentified, false)
	f(StatusClosed, StatusIdentified, true)
	f(StatusClosed, StatusAssessed, false)
	for from, tos := range transitions {
		for _, to := range tos {
			if !from.CanMove(to) {
				t.Errorf("%s -> %s listed but not allowed", from, to)
			}
		}
	}
}

func TestSeverity(t *testing.T) {
	d := Default().Thresholds
	for score, want := range map[int]string{1: "low", 5: "low", 6: "medium", 11: "medium", 12: "high", 19: "high", 20: "critical", 25: "critical"} {
		if got := d.Severity(score); got != want {
			t.Errorf("Severity(%d): got %s, want %s", score, got, want)
		}
	}
}

func TestOverrideMerge(t *testing.T) {
	cats := []string{"a"}
	th := Thresholds{Critical: 9, High: 6, Medium: 3}
	o := Override{Categories: &cats}.Merge(Override{Thresholds: &th})
	c := o.Apply()
	if c.IsDefault || len(c.Categories) != 1 || c.Thresholds != th || c.LikelihoodScale[0].Label != "Rare" {
		t.Errorf("got %+v, want the taxonomy and thresholds overridden, the scales default", c)
	}
	if !(Override{}).Apply().IsDefault {
		t.Errorf("empty override: got is_default false, want true")
	}
}
